/// The store's schema, as numbered migrations. `PRAGMA user_version` records how many have run; each
/// runs in its own transaction, so a store is always at one version or the next, never between.
enum NotesSchema {
    static let migrations: [String] = [
        // 1: notes, their tags, their pipeline stages, and the full-text index
        """
        CREATE TABLE notes (
            id INTEGER PRIMARY KEY,
            created REAL NOT NULL,
            source_name TEXT NOT NULL,
            audio_file TEXT NOT NULL,
            duration REAL NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            title_by TEXT NOT NULL DEFAULT 'none',
            summary TEXT NOT NULL DEFAULT '',
            actions TEXT NOT NULL DEFAULT '[]',
            transcript TEXT NOT NULL DEFAULT '',
            segments TEXT NOT NULL DEFAULT '[]',
            language_model TEXT NOT NULL DEFAULT '',
            embedding BLOB
        );
        CREATE INDEX notes_created ON notes(created);
        CREATE TABLE tags (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            tag TEXT NOT NULL COLLATE NOCASE,
            PRIMARY KEY (note_id, tag)
        );
        CREATE TABLE stages (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            stage TEXT NOT NULL,
            position INTEGER NOT NULL,
            state TEXT NOT NULL DEFAULT 'pending',
            attempts INTEGER NOT NULL DEFAULT 0,
            completions INTEGER NOT NULL DEFAULT 0,
            worker INTEGER,
            started REAL,
            finished REAL,
            error TEXT,
            PRIMARY KEY (note_id, stage)
        );
        CREATE INDEX stages_state ON stages(state, note_id, position);
        CREATE VIRTUAL TABLE notes_fts USING fts5(
            title, summary, transcript, content='notes', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
            INSERT INTO notes_fts(rowid, title, summary, transcript) VALUES (new.id, new.title, new.summary, new.transcript);
        END;
        CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, summary, transcript)
                VALUES ('delete', old.id, old.title, old.summary, old.transcript);
        END;
        CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, summary, transcript ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, summary, transcript)
                VALUES ('delete', old.id, old.title, old.summary, old.transcript);
            INSERT INTO notes_fts(rowid, title, summary, transcript) VALUES (new.id, new.title, new.summary, new.transcript);
        END;
        """,
        // 2: how often the process running a stage ended before finishing it (killed, crashed), so a stage
        // that kills its worker is failed after a few tries instead of being claimed again forever
        """
        ALTER TABLE stages ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;
        """,
        // 3: the highest note id ever given, so a deleted note's id is never given again: a client still holding it
        // (a stale page's DELETE, a job finishing late) must not reach a newer note. SQLite alone takes the largest
        // id in the table plus one, which gives the last note's id again once it is deleted.
        """
        CREATE TABLE note_ids (last INTEGER NOT NULL);
        INSERT INTO note_ids SELECT COALESCE(MAX(id), 0) FROM notes;
        CREATE TRIGGER note_ids_advance AFTER INSERT ON notes BEGIN
            UPDATE note_ids SET last = MAX(last, new.id);
        END;
        """,
        // 4: people, and the voices heard in each note. A voice is one speaker label of one note, with its talk time and
        // voiceprint; each belongs to one person (named or not), so a name given once labels every note of that voice.
        // Person ids are never given again (AUTOINCREMENT), for the same reason as note ids.
        """
        CREATE TABLE people (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT UNIQUE,
            created REAL NOT NULL
        );
        CREATE TABLE voices (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            label TEXT NOT NULL,
            person_id INTEGER NOT NULL REFERENCES people(id),
            seconds REAL NOT NULL,
            voiceprint BLOB,
            PRIMARY KEY (note_id, label)
        );
        CREATE INDEX voices_person ON voices(person_id);
        """,
        // 5: how many people speak in a note, when whoever added it said (the diarizer finds the count otherwise)
        """
        CREATE TABLE note_speakers (
            note_id INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
            count INTEGER NOT NULL
        );
        """,
        // 6: corrections of a note's transcript, each segment as it was before and after, so the last can be undone
        """
        CREATE TABLE corrections (
            id INTEGER PRIMARY KEY,
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            segment INTEGER NOT NULL,
            before TEXT NOT NULL,
            after TEXT NOT NULL,
            at REAL NOT NULL
        );
        CREATE INDEX corrections_note ON corrections(note_id, id);
        """,
        // 7: each imported recording's audio fingerprint, so the same audio imported again (renamed, re-encoded) is
        // skipped; notes added otherwise get theirs when an import first needs to compare with them
        """
        CREATE TABLE fingerprints (
            note_id INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
            moments BLOB NOT NULL
        );
        """,
        // 8: summary templates people wrote (the built-in ones are in the code), and the template each note is written
        // with when it is not the default. The note's id is a plain column, not the row id: a damaged store's pages are
        // read back by the shape of their rows (`ScannedNotes`), and a row of (row id, name, time) is a person's
        """
        CREATE TABLE templates (
            name TEXT PRIMARY KEY COLLATE NOCASE,
            instructions TEXT NOT NULL,
            sections TEXT NOT NULL,
            created REAL NOT NULL
        );
        CREATE TABLE note_templates (
            note_id INTEGER NOT NULL UNIQUE REFERENCES notes(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            chosen REAL NOT NULL
        );
        """,
    ]

    /// Brings the database up to the latest version. A store written by a newer Earshot is refused.
    static func migrate(_ db: SQLiteDatabase) throws {
        try db.transaction {
            let version = try db.query("PRAGMA user_version").first?.first?.int ?? 0
            guard version <= migrations.count else {
                throw NotesError.storeTooNew(path: db.path, version: version, supported: migrations.count)
            }
            for (i, sql) in migrations.enumerated() where i >= version {
                try db.execute(sql)
                try db.execute("PRAGMA user_version = \(i + 1)")
            }
        }
    }
}
