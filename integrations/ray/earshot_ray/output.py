"""The output dataset: a folder of Parquet parts, each written whole under a temporary name and renamed, so a
run that is killed leaves only complete parts, and a rerun skips every id they hold."""

import glob
import os
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA = pa.schema([
    ("id", pa.string()), ("path", pa.string()), ("ok", pa.bool_()), ("duration", pa.float64()),
    ("text", pa.string()), ("language", pa.string()), ("model", pa.string()), ("segments", pa.string()),
    ("words", pa.string()), ("speakers", pa.string()), ("turns", pa.string()), ("sounds", pa.string()),
    ("error", pa.string()), ("seconds", pa.float64()), ("attempts", pa.int64()), ("node", pa.string()),
])


class OutputDataset:
    def __init__(self, folder):
        self.folder = os.path.abspath(folder)
        if os.path.exists(self.folder) and not os.path.isdir(self.folder):
            raise SystemExit(f"earshot_ray: {self.folder} exists and is not a folder (the output is a Parquet dataset folder)")
        os.makedirs(self.folder, exist_ok=True)
        for stale in glob.glob(os.path.join(self.folder, ".part-*.tmp")):
            os.remove(stale)

    def parts(self):
        return sorted(glob.glob(os.path.join(self.folder, "part-*.parquet")))

    def done_ids(self):
        """Ids already in the dataset, failed rows included (`drop` them first to try those again)."""
        done = set()
        for part in self.parts():
            done.update(pq.read_table(part, columns=["id"]).column("id").to_pylist())
        return done

    def failed_ids(self):
        failed = set()
        for part in self.parts():
            table = pq.read_table(part, columns=["id", "ok"])
            failed |= {i for i, ok in zip(table.column("id").to_pylist(), table.column("ok").to_pylist()) if not ok}
        return failed

    def drop(self, ids):
        """Rewrites the parts that hold any of `ids` without them (failed rows about to be tried again)."""
        for part in self.parts():
            table = pq.read_table(part)
            keep = [i not in ids for i in table.column("id").to_pylist()]
            if all(keep):
                continue
            kept = table.filter(pa.array(keep))
            if kept.num_rows:
                self._write(kept, part)
            else:
                os.remove(part)

    def append(self, rows):
        """One new part holding `rows` (dicts with the schema's columns)."""
        if not rows:
            return
        table = pa.Table.from_pylist(rows, schema=SCHEMA)
        self._write(table, os.path.join(self.folder, f"part-{uuid.uuid4().hex[:16]}.parquet"))

    def _write(self, table, target):
        temporary = os.path.join(self.folder, f".part-{uuid.uuid4().hex[:16]}.tmp")
        pq.write_table(table, temporary)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)

    def read(self):
        parts = self.parts()
        if not parts:
            return SCHEMA.empty_table()
        return pa.concat_tables([pq.read_table(p, schema=SCHEMA) for p in parts])
