#!/usr/bin/env python3
"""Print the names iperf_api.h declares: functions (sorted), then the
extern variables, then the exports the header deliberately does not
declare (NOT_IN_HEADER).  This is the export list of libiperf.so
(src/libiperf.sym); `make update-sym` regenerates it, tests/scripts/abi.test
checks it against the header and the built library."""
import re
import sys

# Data the stock library exports and bindings read, but which no header
# declares (a declaration would claim these names in every program that
# includes iperf_api.h).  See libiperf(3), "Version".
#   version  "iperf 3.21", read as (c_char * N).in_dll(lib, "version")
NOT_IN_HEADER = ['version']


def declared(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    # preprocessor lines, including continued ones
    text = re.sub(r'^\s*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)
    text = text.replace('extern "C" {', ' ')
    funcs, vars_ = set(), []
    depth = 0
    stmt = ''
    for ch in text:
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
            stmt = ''
        elif depth == 0:
            if ch == ';':
                s = ' '.join(stmt.split())
                stmt = ''
                if not s or s.startswith('typedef') or s.startswith('enum'):
                    continue
                m = re.match(r'[^(]*?\b([A-Za-z_]\w*)\s*\(', s)
                if m:
                    funcs.add(m.group(1))
                    continue
                m = re.match(r'extern\b.*?\b([A-Za-z_]\w*)\s*$', s)
                if m:
                    vars_.append(m.group(1))
            else:
                stmt += ch
    return sorted(funcs) + vars_


def main():
    with open(sys.argv[1]) as f:
        for name in declared(f.read()) + NOT_IN_HEADER:
            print(name)


if __name__ == '__main__':
    main()
