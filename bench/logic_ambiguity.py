#!/usr/bin/env python3
"""How much of a logical-inference file a model could not learn if it read
the formulas without their round brackets.

For each `label<TAB>formula<TAB>formula` line: every parse of each formula's
bracket-free words (`not` prefix, `and` / `or` infix, any grouping) gives a
set of the 64 truth assignments of a..f that satisfy it; the pair is
ambiguous when two parses give different relations (model-specs §9). Prints
the share of ambiguous pairs, which bounds the accuracy of a bracket-free
reader from above by about 100 - share/2 %. rvnn's logic vocabulary keeps
the brackets as tokens for this reason (LogicVocab.h).

Usage: logic_ambiguity.py FILE...
"""
import functools
import sys

ALL = (1 << 64) - 1
VARIABLES = {name: sum(1 << a for a in range(64) if a >> i & 1)
             for i, name in enumerate("abcdef")}


def relation(left, right):
    """The relation of two sets of assignments, tested as LogicRelation.cpp
    does."""
    if left == right:
        return "="
    if left & ~right == 0:
        return "<"
    if right & ~left == 0:
        return ">"
    disjoint, covering = left & right == 0, left | right == ALL
    if disjoint:
        return "^" if covering else "|"
    return "v" if covering else "#"


def readings(words):
    """The satisfying sets of every parse of bracket-free `words`."""
    @functools.lru_cache(maxsize=None)
    def span(begin, end):
        sets = set()
        if end - begin == 1 and words[begin] in VARIABLES:
            sets.add(VARIABLES[words[begin]])
        if words[begin] == "not" and end - begin > 1:
            sets |= {ALL & ~s for s in span(begin + 1, end)}
        for split in range(begin + 1, end - 1):
            if words[split] not in ("and", "or"):
                continue
            for left in span(begin, split):
                for right in span(split + 1, end):
                    sets.add(left & right if words[split] == "and"
                             else left | right)
        return frozenset(sets)
    return span(0, len(words))


def ambiguous(left, right):
    def unbracketed(formula):
        return tuple(w for w in formula.split() if w not in ("(", ")"))
    relations = {relation(a, b) for a in readings(unbracketed(left))
                 for b in readings(unbracketed(right))}
    return len(relations) > 1


def main(paths):
    if not paths:
        sys.exit(__doc__.strip().splitlines()[-1])
    for path in paths:
        pairs = [line.rstrip("\n").split("\t") for line in open(path)
                 if line.strip()]
        count = sum(ambiguous(left, right) for _, left, right in pairs)
        print(f"{path}: {count} of {len(pairs)} pairs "
              f"({100 * count / len(pairs):.1f} %) have a relation that "
              "depends on the brackets")


if __name__ == "__main__":
    main(sys.argv[1:])
