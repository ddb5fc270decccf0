#!/usr/bin/env python3
"""Seeds the fuzz corpora from the project's fixtures.

    seed.py ROLLCALL-BINARY CORPUS-DIR

- script: every fixture script;
- record, record_line, header: every fixture's exported record, whole and line by line;
- turn_file: the three turn files of the user guide's play-by-email game, and
  their bare payloads;
- house_rules: a house-rules file per rule version, with every setting at its
  default, and the inline form of the same;
- json.dict, a libFuzzer dictionary: JSON tokens, edge numbers, and every key
  and short string of the fixtures and their records;
- decisions_RULESET: for each fixture of the ruleset (in the order the
  target includes them: sorted paths), six of its decisions, one JSON value
  a line, after the two bytes the target reads (which fixture, how many of
  its decisions to play first), from nine points of the game.
"""
import base64, glob, hashlib, json, os, subprocess, sys, tempfile

rollcall, corpus = sys.argv[1], sys.argv[2]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def put(target, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


scripts = sorted(glob.glob(os.path.join(root, "fixtures", "**", "*.json"), recursive=True))
with tempfile.TemporaryDirectory() as tmp:
    for n, path in enumerate(scripts):
        with open(path, "rb") as f:
            put("script", f.read())
        # A store per fixture: the game id is part of the seed, and two
        # fixtures may share one.
        db = os.path.join(tmp, f"db-{n}")
        run = json.loads(subprocess.run([rollcall, "--db", db, "run", path, "--json"], check=True, capture_output=True).stdout)
        record = subprocess.run([rollcall, "--db", db, "export", run["game"], "-o", "-"], check=True, capture_output=True).stdout
        put("record", record)
        lines = record.split(b"\n")[:-1]
        put("header", lines[0])
        for line in lines[1:]:
            put("record_line", line)

# turn_file: the turn files (armoured, and their bare JSON payloads) of the
# user guide's play-by-email game.
with tempfile.TemporaryDirectory() as tmp:
    def rc(db, *args):
        return subprocess.run([rollcall, "--db", os.path.join(tmp, db), *args], check=True, capture_output=True)
    tom, jerry = os.path.join(tmp, "tom.key"), os.path.join(tmp, "jerry.key")
    rc("tom", "keygen", "-o", tom)
    rc("jerry", "keygen", "-o", jerry)
    invite, accept = os.path.join(tmp, "invite.txt"), os.path.join(tmp, "accept.txt")
    rc("tom", "pbem", "invite", "--rules", "leader-activation@1", "--scenario",
       os.path.join(root, "examples", "pbem", "scenario.json"), "--side", "allies", "--key", tom, "--game", "friday",
       "-o", invite)
    rc("jerry", "pbem", "accept", invite, "--key", jerry, "-o", accept)
    rc("tom", "pbem", "start", accept, "--key", tom)
    for n, (db, key, other, play) in enumerate([("tom", tom, "jerry", "allies-1.json"),
                                                ("jerry", jerry, "tom", "axis-1.json"),
                                                ("tom", tom, "jerry", "allies-2.json")]):
        rc(db, "play", "friday", os.path.join(root, "examples", "pbem", play))
        turn = os.path.join(tmp, f"turn-{n}.txt")
        rc(db, "turn", "export", "friday", "--key", key, "-o", turn)
        rc(other, "turn", "apply", turn)
        text = open(turn, "rb").read()
        put("turn_file", text)
        body = b"".join(l.strip() for l in text.split(b"\n\n", 1)[1].split(b"\n") if not l.startswith(b"-----"))
        put("turn_file", base64.b64decode(body + b"=" * (-len(body) % 4)))

rulesets = json.loads(subprocess.run([rollcall, "rules", "list", "--json"], check=True, capture_output=True).stdout)
for r in rulesets["rulesets"]:
    for v in r["versions"]:
        show = json.loads(subprocess.run([rollcall, "rules", "show", v["id"], "--json"], check=True, capture_output=True).stdout)
        options = {s["name"]: s["value"] for s in show["settings"] if s["kind"] == "option"}
        constants = {s["name"]: s["value"] for s in show["settings"] if s["kind"] == "constant"}
        put("house_rules", json.dumps({"name": "seed", "base": v["id"], "options": options, "constants": constants}, indent=1))
        inline = v["id"] + "".join(f"+{k}={str(x).lower()}" for k, x in {**options, **constants}.items())
        put("house_rules", inline)

for ruleset in ["leader-activation", "phoenix-command", "combat-hq", "formation-activation"]:
    target = "decisions_" + ruleset.replace("-", "_")
    files = sorted(glob.glob(os.path.join(root, "fixtures", ruleset, "**", "*.json"), recursive=True))
    for i, path in enumerate(files):
        decisions = json.load(open(path))["decisions"]
        # Short inputs from many points of the game: the fuzzer runs faster
        # on them, and the second byte reaches any state of the fixture.
        for start in sorted({min(len(decisions), 255) * q // 8 for q in range(9)}):
            body = "\n".join(json.dumps(d, separators=(",", ":")) for d in decisions[start:start + 6])
            put(target, bytes([i, start]) + body.encode())
# A libFuzzer dictionary: JSON's tokens, numbers at the edges, and every key
# and short string of the fixtures and their records (field names, decision
# types, ids), each quoted as JSON writes it.
words = {"null", "true", "false", "{", "}", "[", "]", ":", ",", '""', "0", "-1", "-0", "0.5", "1e999",
         "9223372036854775807", "-9223372036854775808", "18446744073709551615", "18446744073709551616",
         "1000000000", "1000000001", '"\\u001b"', '"\\n"', ":null,", ":null}"}
def collect(v):
    if isinstance(v, dict):
        for k, x in v.items():
            words.add(json.dumps(k))
            words.add(json.dumps(k) + ":null,")
            collect(x)
    elif isinstance(v, list):
        for x in v:
            collect(x)
    elif isinstance(v, str) and len(v) <= 40:
        words.add(json.dumps(v))
for path in scripts:
    collect(json.load(open(path)))
for f in glob.glob(os.path.join(corpus, "header", "seed-*")) + glob.glob(os.path.join(corpus, "record_line", "seed-*"))[:200]:
    try:
        collect(json.loads(open(f, "rb").read()))
    except ValueError:
        pass
with open(os.path.join(corpus, "json.dict"), "w") as f:
    for w in sorted(words):
        f.write(json.dumps(w) + "\n")

print(f"seeded {corpus}: " + ", ".join(f"{t} {len(os.listdir(os.path.join(corpus, t)))}" for t in sorted(os.listdir(corpus)) if t != "json.dict") + f"; dictionary {len(words)} words")
