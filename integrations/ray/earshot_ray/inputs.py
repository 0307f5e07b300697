"""What a run works through: the recordings below a folder, or the lines of a manifest."""

import json
import os

# the names `earshot batch` picks up in folders (EarshotCore's AudioFiles)
AUDIO_EXTENSIONS = {"wav", "flac", "ogg", "oga", "opus", "mp3", "m4a", "aac", "aif", "aiff", "webm", "caf"}


def list_inputs(source):
    """[{"id", "path"}] for every recording below a folder (all depths, hidden entries skipped, sorted; the id
    is the path relative to the folder), or for every line of a manifest (a path per line, relative to the
    manifest's folder, or a JSON object with "path" and optionally "id"; blank lines and # comments skipped;
    the id is the path as written). Ids are unique: a path listed twice is an error."""
    source = os.path.abspath(source)
    if os.path.isdir(source):
        items = []
        for root, dirs, files in os.walk(source, followlinks=True):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in files:
                if name.startswith(".") or name.rsplit(".", 1)[-1].lower() not in AUDIO_EXTENSIONS or "." not in name:
                    continue
                path = os.path.join(root, name)
                items.append({"id": os.path.relpath(path, source), "path": path})
        items.sort(key=lambda item: item["id"])
    elif os.path.isfile(source):
        items = _manifest(source)
    else:
        raise SystemExit(f"earshot_ray: {source}: no such folder or manifest")
    seen = set()
    for item in items:
        if item["id"] in seen:
            raise SystemExit(f"earshot_ray: {source}: {item['id']} is listed twice (ids must be unique)")
        seen.add(item["id"])
    return items


def _manifest(path):
    folder = os.path.dirname(path)
    items = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("{"):
                try:
                    entry = json.loads(line)
                    file = entry["path"]
                except (ValueError, KeyError, TypeError):
                    raise SystemExit(f"earshot_ray: {path}: line {number} is not a job with a \"path\"")
                ident = str(entry.get("id", file))
            else:
                file, ident = line, line
            items.append({"id": ident, "path": file if os.path.isabs(file) else os.path.join(folder, file)})
    return items
