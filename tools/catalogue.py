"""The model catalogue (scripts/lock/models.json) for setup.

usage: catalogue.py verify-sources CATALOGUE EARSHOT_HOME
         every pinned source file matches its SHA-256 (a file that does not is removed, so setup fetches it again)
       catalogue.py install CATALOGUE EARSHOT_HOME
         writes EARSHOT_HOME/models/catalogue.json: the catalogue with each installed file's SHA-256, size and
         modification time, which Earshot checks before it loads a file
"""
import hashlib
import json
import os
import sys


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify_sources(catalogue, home):
    bad = 0
    for model in catalogue["models"]:
        for source in model["sources"]:
            path = os.path.join(home, source["path"])
            got = sha256(path) if os.path.exists(path) else "missing"
            if got != source["sha256"]:
                if os.path.exists(path):
                    os.remove(path)
                print(f"checksum mismatch for {path} (expected {source['sha256']}, got {got}); removed it", file=sys.stderr)
                bad += 1
    return bad


def install(catalogue, home):
    target = os.path.join(home, "models", "catalogue.json")
    # a file whose size and modification time are as last recorded keeps its recorded hash (setup runs are quick)
    known = {}
    if os.path.exists(target):
        try:
            known = {f["path"]: f for m in json.load(open(target))["models"] for f in m["files"]}
        except (ValueError, KeyError):
            known = {}
    installed = dict(catalogue)
    installed["models"] = []
    for model in catalogue["models"]:
        entry = {k: v for k, v in model.items() if k != "sources"}
        entry["files"] = []
        for rel in model["files"]:
            path = os.path.join(home, rel)
            st = os.stat(path)  # setup made every file: a missing one is setup's bug, and fails here
            old = known.get(rel)
            same = old and old.get("bytes") == st.st_size and old.get("modified") == st.st_mtime
            entry["files"].append({"path": rel, "sha256": old["sha256"] if same else sha256(path), "bytes": st.st_size,
                                   "modified": st.st_mtime})
        installed["models"].append(entry)
    with open(target + ".tmp", "w") as f:
        json.dump(installed, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(target + ".tmp", target)


def main():
    command, catalogue_path, home = sys.argv[1:4]
    catalogue = json.load(open(catalogue_path))
    if command == "verify-sources":
        sys.exit(1 if verify_sources(catalogue, home) else 0)
    elif command == "install":
        install(catalogue, home)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
