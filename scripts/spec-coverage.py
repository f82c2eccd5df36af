#!/usr/bin/env python3
"""Gannet's specification coverage table (docs/spec-coverage.md).

Reads every declaration in the API Reference sections of the UPC++ 2020.10.0
specification text, joins each declared name with its row in the hand-maintained
status file (docs/spec-coverage-status.tsv), adds the later releases' additions listed
there, and writes the table.

  spec-coverage.py [--spec FILE] [--status FILE] [--out FILE]   regenerate the table
  spec-coverage.py --check [--require-complete] [...]           fail if anything drifted

--check fails when the committed table differs from what would be generated, when a
specification name has no status row (or a row names something the specification does
not declare), when a `done` row's test file does not exist or does not mention the name,
or when a row outside the GPU kinds is out of scope. Open rows are counted; they fail the
check only with --require-complete.
"""
import argparse, os, re, sys
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, '..', 'shared', 'reference', 'upcxx-spec-2020.10.0.txt')
STATUS = os.path.join(ROOT, 'docs', 'spec-coverage-status.tsv')
OUT = os.path.join(ROOT, 'docs', 'spec-coverage.md')
# The only names the issue lets stay out of scope: the GPU device kinds.
GPU = ('cuda_device', 'hip_device', 'ze_device', 'device_allocator', 'make_gpu_allocator')
STATES = ('done', 'open', 'out-of-scope')
CLASSES = set()   # class names the spec declares (filled by spec_table)
ENUMS = set()     # its scoped enumerations, whose enumerators tests spell qualified

# ---------------------------------------------------------------- reading the spec text

NOISE = re.compile(r'LBNL-2001367|^\s*UPC\+\+ v1\.0 Specification, Revision|^\s*CHAPTER \d+\.|^\s{12,}\d+\s*$')
PARA = re.compile(r'^ {0,2}\d{1,3}(?: +(\S.*))?$')          # a numbered paragraph
CODE = re.compile(r' \( |\(\)| ;|< | ::|^# ?define|^//|^\[ static \]|^(template|class|struct|namespace|using|enum|constexpr) ')

def is_code(text):
    return (CODE.search(text) and not re.match(r'[A-Z][a-z]*[\s:,.]|[•~]', text)   # not a sentence
            and not re.search(r'\s(is|are|the|must|will)\s', text))

def dehyphenate(text, vocab):
    """pdftotext splits some identifiers ("ac ti ve_ wi th _c al le r"): rejoin a run of
    word fragments when the joined word contains '_' and is spelled whole elsewhere."""
    toks = re.split(r'(\s+)', text)
    out, i = [], 0
    while i < len(toks):
        for j in range(min(len(toks), i + 49), i + 2, -2):    # words sit at even indices
            parts = toks[i:j:2]
            word = ''.join(parts)
            if (all(re.fullmatch(r'\w+', p) for p in parts) and '_' in word and word in vocab
                    and all(s == ' ' or s.strip() == '' for s in toks[i + 1:j:2])):
                out.append(word)
                i = j
                break
        else:
            out.append(toks[i])
            i += 1
    return ''.join(out)

def compact(code):
    """The spec's spaced tokens as ordinary C++ spelling."""
    s = re.sub(r'//[^\n]*', '', code)
    s = ' '.join(s.split())
    s = re.sub(r'operator < <', 'operator<<', s)
    s = re.sub(r'\s*::\s*', '::', s)
    s = re.sub(r'(\w)\s+<', r'\1<', s)
    s = re.sub(r'~\s+', '~', s)
    s = re.sub(r'\s+([,;)\]>&(]|\*(?!/)|\.\.\.)', r'\1', s)
    s = re.sub(r'(\d) L\b', r'\1L', s)
    s = re.sub(r'([(<\[])\s+', r'\1', s)
    s = re.sub(r'\boperator\s+(?=[^\w\s])', 'operator', s)
    s = re.sub(r'(\w)\s+-\s+(\w)', r'\1-\2', s)                  # implementation - defined
    s = re.sub(r',(?=\S)', ', ', s)
    return s.replace('[static]', 'static').replace('[explicit]', 'explicit')

def read_spec(path):
    """[(section number, title, [code block, ...])] for the API Reference sections."""
    lines = open(path, encoding='utf-8').read().split('\n')
    vocab = set(re.findall(r'\w*_\w*', '\n'.join(lines))) | {'iterator_category', 'input_iterator_tag', 'futures_or_values'}
    start = next(i for i, l in enumerate(lines) if l.strip() == 'Chapter 1')
    lines = ['' if NOISE.search(l) else l for l in lines[start:]]
    sections, titles, chapter, in_api, cur, block, prev, want_title = [], {}, 0, False, None, None, '', False
    for line in lines + ['']:
        m = re.match(r'^\s*Chapter (\d+)$', line)
        h = re.match(r'^\s{0,12}(\d+)\.(\d+)(\.\d+)?\s{2,}(\S.*)$', line)
        if m:
            chapter, in_api, want_title = int(m.group(1)), False, True
        elif want_title and line.strip():
            titles[str(chapter)], want_title = line.strip(), False
        elif h and int(h.group(1)) == chapter:
            if not h.group(3):
                in_api = h.group(4).strip() == 'API Reference'
            if in_api:
                title = h.group(4).strip()
                title = titles[h.group(1)] if title == 'API Reference' else title
                cur = (h.group(1) + '.' + h.group(2) + (h.group(3) or ''), title, [])
                sections.append(cur)
            block = None
            continue
        if not in_api:
            continue
        p = PARA.match(line)
        if block is not None:
            depth = sum(block.count(c) for c in '({') - sum(block.count(c) for c in ')}')
            ended = block.rstrip().endswith((';', '}')) or block.lstrip().startswith('#')
            if p or line.strip() and depth <= 0 and ended and not is_code(line.strip()):
                if not example:           # code after "...equivalent to:" is an example
                    cur[2].append(dehyphenate(block, vocab))
                block = None
            else:
                block += '\n' + line
                continue
        if p and p.group(1) is None:
            block = ''                    # the number alone: the code starts on the next line
        elif p and is_code(p.group(1)):
            block = p.group(1)
        example = prev.endswith((':', 'equivalent to'))
        prev = line.strip() or prev
    return sections

# ---------------------------------------------------------------- declarations and names

def skip_template_headers(s):
    while s.startswith('template<') or s.startswith('template <'):
        depth, i = 0, s.index('<')
        while i < len(s):
            depth += {'<': 1, '>': -1}.get(s[i], 0)
            if depth == 0 or s[i] == ')':     # the spec once closes a header with ')'
                break
            i += 1
        s = s[i + 1:].lstrip()
    return s

def split_decls(code):
    """Top-level declarations of a block; a namespace or class body is kept whole."""
    out, depth, cur = [], 0, ''
    for c in code:
        cur += c
        depth += {'{': 1, '}': -1}.get(c, 0)
        if depth == 0 and c in ';}' and cur.strip():
            if c == '}' and not re.match(r'\s*namespace', cur):
                continue                       # class body: wait for its ';'
            out.append(cur.strip())
            cur = ''
    if cur.strip():
        out.append(cur.strip())
    return out

def qualified_before(s, end):
    """The qualified id that ends at s[:end] (template arguments dropped)."""
    i, parts = end, []
    while True:
        m = re.search(r'(~?\w+|\[\w+\])$', s[:i].rstrip())
        if not m:
            break
        parts.insert(0, m.group(1).strip('[]'))
        i = m.start()
        if not s[:i].endswith('::'):
            break
        i -= 2
        if s[:i].endswith('>'):
            depth = 0
            while i > 0:
                i -= 1
                depth += {'>': 1, '<': -1}.get(s[i], 0)
                if depth == 0:
                    break
    return parts

def names(code, scope=()):
    """[(qualified name as a tuple, signature)] declared by one code block."""
    found = []
    for decl in split_decls(compact(code)):
        sig = decl.rstrip(';').strip()
        body = skip_template_headers(sig)
        body = re.sub(r'^(static|constexpr|explicit|inline|const)\s+', '', body)
        if body.startswith('namespace'):
            ns = re.match(r'namespace (\w+)\s*\{(.*)\}$', body, re.S)
            found += names(ns.group(2), scope + (ns.group(1),))
            continue
        m = re.match(r'#\s*define\s+(\w+)', body)
        k = re.match(r'(?:enum class|class|struct)\s+((?:\w+::)*\w+)\s*(<[^{;:]*>)?', body)
        u = re.match(r'using\s+(\w+)\s*=', body)
        if m:
            found.append(((m.group(1),), sig.replace('# define', '#define')))
        elif k:
            name = tuple(k.group(1).split('::'))
            if scope == ('std',) and k.group(2):          # std::hash<global_ptr<T, Kind>>
                name = (name[0] + '<' + re.match(r'<(\w+)', k.group(2)).group(1) + '>',)
            head = sig.split('{')[0].strip()
            found.append((scope + name, head))
            if '{' in body:
                inner = body[body.index('{') + 1:body.rindex('}')]
                if body.startswith('enum'):
                    inner = re.sub(r'/\*.*?\*/', '', inner)
                    found += [(scope + name + (e.split('=')[0].strip(),), '::'.join(name + (e.split('=')[0].strip(),)))
                              for e in inner.split(',') if e.strip()]
                else:
                    inner = re.sub(r'\b(public|private|protected)\s*:', '', inner)
                    found += names(inner, scope + name)
        elif u:
            found.append((scope + (u.group(1),), sig))
        else:
            flat = re.sub(r'/\*.*?\*/', '', body)
            op = re.search(r'\boperator(\(\)|\[\]|\s*\w+|[^\w\s(]+)\s*\(', flat)
            if op:
                where = op.start()
                parts = qualified_before(flat[:where] + 'x', where + 1)[:-1]
                sym = op.group(1).strip()
                name = tuple(parts) + ('operator' + (' ' if sym[0].isalpha() else '') + sym,)
                if not parts:                # a free operator: name it after its operand class
                    arg = re.findall(r'(\w+)\s*(?:<[^()]*>)?\s*[&*]?\s*\w+\s*\)', flat)
                    name = (name[0] + '(' + arg[-1] + ')',) if arg and arg[-1] in CLASSES else name
            else:
                depth, cut = 0, len(flat)      # the name ends at the first '(' or '=' outside <>
                for i, c in enumerate(flat):
                    depth += {'<': 1, '>': -1}.get(c, 0) if flat[i - 1:i + 1] != '->' else 0
                    if depth == 0 and c in '(=':
                        cut = i
                        break
                name = tuple(qualified_before(flat, cut))
            if name:
                found.append((scope + name, sig))
    return found

def spec_table(path):
    """OrderedDict section -> (title, OrderedDict name -> [signatures])."""
    sections = read_spec(path)
    for _, _, blocks in sections:
        for block in blocks:
            CLASSES.update(re.findall(r'\b(?:class|struct)\s+(\w+)', compact(block)))
    table = OrderedDict()
    for number, title, blocks in sections:
        rows = table.setdefault(number, (title, OrderedDict()))[1]
        for block in blocks:
            for name, sig in names(block):
                name = '::'.join(name[1:] if name[0] == 'upcxx' else name)
                rows.setdefault(name, [])
                if sig not in rows[name]:
                    rows[name].append(sig)
    return OrderedDict((k, v) for k, v in table.items() if v[1])

def table_from_md(path):
    """The same table read back from a generated docs/spec-coverage.md (for machines
    without the specification text: the 2020.10.0 document is frozen, the table is not)."""
    table, rows = OrderedDict(), None
    for line in open(path, encoding='utf-8'):
        h = re.match(r'### (\d+\.\d+(?:\.\d+)?) (.*)', line)
        if h:
            rows = table.setdefault(h.group(1), (h.group(2).strip(), OrderedDict()))[1]
        elif line.startswith('## ') and not line.startswith('## 2020.10.0'):
            rows = None
        elif rows is not None and line.startswith('| `'):
            cells = [c.strip() for c in re.split(r'(?<!\\)\|', line)[1:-1]]
            rows[cells[0].strip('`').replace('\\|', '|')] = [x.strip('`').replace('\\|', '|') for x in cells[1].split('<br>')]
    return table

# ---------------------------------------------------------------- status, table, check

def read_status(path):
    """({name: (state, where)}, OrderedDict release -> [(name, state, where, what)])."""
    base, later, release = {}, OrderedDict(), None
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        line = line.rstrip('\n')
        if not line.strip() or line.startswith('#'):
            continue
        r = re.match(r'\[(.+)\]$', line.strip())
        if r:
            release = r.group(1)
            later.setdefault(release, [])
            continue
        f = [x.strip() for x in line.split('\t') if x.strip()] + ['', '']
        if f[1] not in STATES:
            sys.exit('%s:%d: state must be one of %s' % (path, n, ', '.join(STATES)))
        if release:
            later[release].append((f[0], f[1], f[2], f[3]))
        elif f[0] in base:
            sys.exit('%s:%d: %s has two rows' % (path, n, f[0]))
        else:
            base[f[0]] = (f[1], f[2])
    return base, later

def token(name):
    """The identifier a test that exercises `name` must mention."""
    parts = re.sub(r'<.*?>', '', name).split('::')
    last = parts[-1]
    if len(parts) == 2 and parts[0] in ENUMS:
        return name
    if last.startswith('operator'):
        m = re.search(r'\((\w+)\)$', last)
        return m.group(1) if m else parts[-2] if len(parts) > 1 else last.replace('operator', '')
    return parts[-2] if last.startswith('~') else last

def problems_of(name, state, where):
    if state == 'out-of-scope' and not any(g in name for g in GPU):
        return ['%s: only the GPU device kinds may be out of scope' % name]
    if state != 'done':
        return []
    where, _, word = where.partition('#')
    word = word or token(name)
    if not where or not os.path.isfile(os.path.join(ROOT, where)):
        return ['%s: test file %r does not exist' % (name, where)]
    if not re.search(r'(?<!\w)' + re.escape(word) + r'(?!\w)', open(os.path.join(ROOT, where), encoding='utf-8').read()):
        return ['%s: %s does not mention %r' % (name, where, word)]
    return []

def cell(text):
    return text.replace('|', '\\|')

def status_cells(state, where):
    if state == 'done':
        path = where.partition('#')[0]
        return 'done', '[%s](../%s)' % (path, path)
    return state, cell(where)

def render(table, base, later):
    counts = {s: 0 for s in STATES}
    for _, rows in table.values():
        for name in rows:
            counts[base.get(name, ('open', ''))[0]] += 1
    out = ['# Specification coverage', '',
           'Generated by `scripts/spec-coverage.py` from the UPC++ specification revision 2020.10.0',
           'and `docs/spec-coverage-status.tsv`; do not edit by hand. CTest (`docs.spec_coverage`)',
           'fails when this file, the specification, the status file or the tests drift apart.',
           'A `done` row names a test that exercises the name; only the GPU device kinds may be',
           'out of scope.', '',
           '2020.10.0: %d names: %d done, %d open, %d out of scope.' % (
               sum(counts.values()), counts['done'], counts['open'], counts['out-of-scope']), '',
           '## 2020.10.0', '']
    for number, (title, rows) in table.items():
        out += ['### %s %s' % (number, title), '', '| name | signature(s) | status | test |', '|---|---|---|---|']
        for name, sigs in rows.items():
            st, where = status_cells(*base.get(name, ('open', 'no status row')))
            out.append('| `%s` | %s | %s | %s |' % (cell(name), '<br>'.join('`%s`' % cell(s) for s in sigs), st, where))
        out.append('')
    for release, rows in later.items():
        heading = 'Added %s' % release if release.startswith('after') else 'Added in %s' % release
        out += ['## ' + heading, '', '| name | what | status | test |', '|---|---|---|---|']
        for name, state, where, what in rows:
            st, where = status_cells(state, where)
            out.append('| `%s` | %s | %s | %s |' % (cell(name), cell(what), st, where))
        out.append('')
    return '\n'.join(out)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--spec', default=SPEC)
    ap.add_argument('--status', default=STATUS)
    ap.add_argument('--out', default=OUT)
    ap.add_argument('--check', action='store_true', help='compare instead of writing')
    ap.add_argument('--require-complete', action='store_true', help='open rows fail the check')
    a = ap.parse_args()
    if os.path.isfile(a.spec):
        table = spec_table(a.spec)
    elif a.check and os.path.isfile(a.out):
        print('note: %s not found; names taken from %s' % (a.spec, a.out))
        table = table_from_md(a.out)
    else:
        sys.exit('specification text not found: %s' % a.spec)
    ENUMS.update(n for _, rows in table.values() for n, sigs in rows.items() if sigs[0].startswith('enum class'))
    base, later = read_status(a.status)
    text = render(table, base, later) + '\n'
    if not a.check:
        open(a.out, 'w', encoding='utf-8').write(text)
        print('wrote', a.out)
        return 0
    spec_names = {n for _, rows in table.values() for n in rows}
    bad = ['%s: no status row' % n for n in sorted(spec_names - set(base))]
    bad += ['%s: status row for a name the specification does not declare' % n for n in sorted(set(base) - spec_names)]
    for name, (state, where) in sorted(base.items()):
        bad += problems_of(name, state, where)
    for release, rows in later.items():
        for name, state, where, what in rows:
            bad += ['[%s] %s' % (release, p) for p in problems_of(name, state, where)]
    if not os.path.isfile(a.out) or open(a.out, encoding='utf-8').read() != text:
        bad.append('%s is stale: run scripts/spec-coverage.py' % os.path.relpath(a.out, ROOT))
    open_rows = [n for n, (s, _) in base.items() if s == 'open'] + \
                ['[%s] %s' % (r, n) for r, rows in later.items() for n, s, _, _ in rows if s == 'open']
    if a.require_complete:
        bad += ['%s: open' % n for n in open_rows]
    for b in bad:
        print('spec-coverage:', b)
    print('spec-coverage: %d names, %d open rows%s, %d problems' % (
        len(spec_names), len(open_rows), '' if a.require_complete else ' (allowed)', len(bad)))
    return 1 if bad else 0

if __name__ == '__main__':
    sys.exit(main())
