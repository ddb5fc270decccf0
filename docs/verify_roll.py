#!/usr/bin/env python3
"""Check a rollcall record's dice without rollcall.

An independent implementation of the dice derivation (see core/src/dice.rs
and core/src/seed.rs), for a player who does not want to trust our binary:

    pip install blake3 cryptography
    python3 docs/verify_roll.py game.jsonl          # re-derive every roll
    python3 docs/verify_roll.py game.jsonl 12 rally 0 d6   # one roll

It reads the header, checks each party's share against its commitment,
derives the game seed, and recomputes each roll from its address
(decision number, label, index). It checks dice only: legality, facts and
the hash chain are `rollcall verify`'s job.
"""
import json
import struct
import sys

import blake3
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

SEED_CONTEXT = "rollcall 2026-11-29 game seed from party shares v1"


def game_seed(game: str, shares: list) -> bytes:
    material = struct.pack(">Q", len(game.encode())) + game.encode() + b"".join(shares)
    return blake3.blake3(material, derive_key_context=SEED_CONTEXT).digest()


def faces(die: str) -> int:
    if die == "d6":
        return 6
    if die == "d10":
        return 10
    if die.startswith("pick"):
        return int(die[4:])
    raise ValueError(f"unknown die {die!r}")


def draw(seed: bytes, decision: int, label: str, index: int, die: str) -> int:
    lab = label.encode()
    address = b"rollcall/dice/v1\0" + struct.pack(">Q", decision) + struct.pack(">I", len(lab)) + lab + struct.pack(">I", index)
    key = blake3.blake3(address, key=seed).digest()
    stream = Cipher(algorithms.ChaCha20(key, b"\0" * 16), mode=None).encryptor()
    n = faces(die)
    limit = (1 << 32) // n * n
    while True:
        (x,) = struct.unpack("<I", stream.update(b"\0" * 4))
        if x < limit:
            return x % n + (1 if die == "d6" else 0)


def main(argv):
    if len(argv) not in (2, 6):
        print(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        header = json.loads(f.readline())
        if header["seed"]["mode"] != "open":
            print(f"{argv[1]}: a {header['seed']['mode']} record: its dice were not drawn from a seed")
            return 1
        shares = []
        for party in header["seed"]["parties"]:
            share = bytes.fromhex(party["share"])
            if blake3.blake3(share).hexdigest() != party["commitment"]:
                print(f"party {party['name']!r}: share does not match its commitment")
                return 1
            shares.append(share)
        seed = game_seed(header["game"], shares)
        if len(argv) == 6:
            print(draw(seed, int(argv[2]), argv[3], int(argv[4]), argv[5]))
            return 0
        bad = 0
        count = 0
        for line in f:
            event = json.loads(line)
            if event["kind"] != "roll":
                continue
            b = event["body"]
            want = draw(seed, b["decision"], b["label"], b["index"], b["die"])
            count += 1
            if want != b["value"]:
                bad += 1
                print(f"seq {event['seq']}: {b['die']} {b['label']!r} #{b['index']} of decision {b['decision']} is {b['value']}, the seed gives {want}")
        print(f"{count} rolls checked, {bad} wrong")
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
