"""Logical-inference pairs for the eager baselines (bench/eager_step.py,
bench/train_reference.py), and the per-task data table of both.

`label<TAB>sentence1<TAB>sentence2` lines (model-specs §9), with the token
and label ids rvnn's reader gives them (lib/Runtime/Data/LogicVocab.h and
LogicRelation.cpp): variables a-f are 1-6, and/or/not 7-9, the round
brackets 10 and 11 (tokens, as in the published models' code); labels are
the relations `< > = ^ | # v` in that order.
"""
import sys

import torch

from listops_training import make_batch, read_listops

LOGIC_IDS = {name: 1 + i for i, name in enumerate("abcdef")}
LOGIC_IDS.update({"and": 7, "or": 8, "not": 9, "(": 10, ")": 11})
RELATIONS = "<>=^|#v"
OPERATOR_IDS = {LOGIC_IDS["and"], LOGIC_IDS["or"], LOGIC_IDS["not"]}


def read_logic(path):
    """-> [((ids of sentence 1, ids of sentence 2), relation id)]."""
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            fields = line.split("\t")
            if len(fields) != 3 or fields[0] not in RELATIONS or not fields[0]:
                sys.exit(f"{path}:{number}: expected relation<TAB>sentence"
                         "<TAB>sentence")
            try:
                sides = tuple([LOGIC_IDS[t] for t in side.split()]
                              for side in fields[1:])
            except KeyError as error:
                sys.exit(f"{path}:{number}: unknown token {error}")
            if not all(sides):
                sys.exit(f"{path}:{number}: empty sentence")
            rows.append((sides, RELATIONS.index(fields[0])))
    return rows


def pad(sequences):
    width = max(len(ids) for ids in sequences)
    tokens = torch.zeros(len(sequences), width, dtype=torch.int64)
    mask = torch.zeros(len(sequences), width, dtype=torch.float32)
    for i, ids in enumerate(sequences):
        tokens[i, :len(ids)] = torch.tensor(ids, dtype=torch.int64)
        mask[i, :len(ids)] = 1
    return tokens, mask


def make_pair_batch(rows):
    """-> [tokens1, mask1, tokens2, mask2], labels: each side padded to its
    own longest sentence, like rvnn's pair batches."""
    tokens1, mask1 = pad([sides[0] for sides, _ in rows])
    tokens2, mask2 = pad([sides[1] for sides, _ in rows])
    labels = torch.tensor([label for _, label in rows], dtype=torch.int64)
    return [tokens1, mask1, tokens2, mask2], labels


def operator_count(sides):
    """A pair's operator count as rvnn-run reports it
    (lib/Runtime/Report/OperatorCount.cpp): that of its larger formula."""
    return max(sum(t in OPERATOR_IDS for t in ids) for ids in sides)


# Per task: the reader, the batcher and a row's length in tokens (what
# rvnn's length buckets sort by: for a pair, its longer sentence).
TASKS = {
    "listops": (read_listops, make_batch, lambda ids: len(ids)),
    "logic": (read_logic, make_pair_batch,
              lambda sides: max(len(ids) for ids in sides)),
}
