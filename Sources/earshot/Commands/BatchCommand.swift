import EarshotBatch
import EarshotCore
import EarshotNotes
import EarshotSpeech
import Foundation

/// `earshot batch`: a long-lived worker for archives (what the Ray integration runs, one per actor), or a shard
/// of a folder or manifest for running without a cluster.
enum BatchCommand {
    static let command = Command(
        name: "batch",
        abstract: "Work through many recordings with models loaded once: job lines on stdin, or a shard of folders.",
        usage: "[options] [<folder|manifest|file>...]",
        discussion: """
        Without inputs it is a worker: each line of standard input is a job,
          {"id": "a1", "path": "/data/a1.flac", "tasks": ["transcribe", "words"], "options": {"model": "base"}}
        and each job gives exactly one line on standard output, written at once:
          {"id": "a1", "ok": true, "duration": 12.3, "text": "...", "segments": [...], "seconds": 1.9}
        A file that cannot be used gives {"ok": false, "error": "..."}; the worker goes on. Tasks: transcribe,
        words (every word timed), speakers (the transcript labelled by voice, enrolled names), diarize (who
        spoke when, no text), sounds (the built-in classifier's labels). Options: model, language, beam_size,
        prompt, hotwords, temperature, num_speakers, top. The exit code is 0 once standard input ends.

        With folders (searched at all depths), manifests (one path or job line per line) or files, and --output,
        it works through its shard of them (--shard I/N: every N-th file by a hash of its path, so N machines
        can share a folder without a scheduler) and keeps each result in the output folder under the
        recording's content hash: a rerun skips what is done. Result lines still go to standard output.
        """,
        options: [
            Option(name: "model", value: "name", help: "Whisper model for jobs that name none: tiny.en (default) or base."),
            Option(name: "threads", value: "n", help: "CPU threads for the models (default \(SpeechRecognizer.defaultThreadCount))."),
            Option(name: "tasks", value: "list", help: "Tasks for jobs that give none, comma-separated (default transcribe)."),
            Option(name: "language", value: "code", help: "Spoken language for jobs that give none (default en; 'auto' detects)."),
            Option(name: "output", value: "dir", help: "With inputs: keep each result here, named by the recording's content hash."),
            Option(name: "shard", value: "I/N", help: "With inputs: take only shard I of N (0 ≤ I < N)."),
            Option(name: "jobs", value: "n", help: "With inputs: files worked on at once, each on its share of the threads (default: one per thread)."),
            Option(name: "no-progress", value: nil, help: "Hide the progress bar shown on a terminal."),
        ],
        examples: [
            #"echo '{"id":"m1","path":"meeting.m4a","tasks":["transcribe","words"]}' | earshot batch"#,
            "earshot batch --output results/ --shard 0/4 /archive/podcasts     # on machine 1 of 4",
            "earshot batch --tasks transcribe,speakers --output out/ manifest.txt",
            "python -m earshot_ray transcribe /archive --output archive.parquet   # the same worker on a Ray cluster",
        ],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let tasks = try readTasks(args)
        var options = BatchOptions()
        options.language = args.value("language")
        let model: WhisperModel
        do { model = try WhisperModel(named: args.value("model") ?? WhisperModel.default.rawValue) } catch {
            throw UsageError(message: error.localizedDescription, path: args.path)
        }
        let threads = try args.int("threads", default: SpeechRecognizer.defaultThreadCount, range: 1...64)
        if args.positionals.isEmpty {
            if args.value("jobs") != nil { throw UsageError(message: "--jobs works on inputs: a worker on standard input runs one job at a time", path: args.path) }
            let worker = BatchWorker(threads: threads, model: model, voices: NotesLibrary.namedVoices())
            if args.value("output") != nil || args.value("shard") != nil {
                throw UsageError(message: "--output and --shard work on inputs: name folders, manifests or files", path: args.path)
            }
            return await serveStandardInput(worker, tasks: tasks, options: options)
        }
        guard let output = args.value("output") else {
            throw UsageError(message: "give --output DIR to keep the results of the inputs", path: args.path)
        }
        let shard: (index: Int, count: Int)
        do { shard = try BatchInputs.shard(args.value("shard") ?? "0/1") } catch {
            throw UsageError(message: error.localizedDescription, path: args.path)
        }
        let all = try BatchInputs.jobs(from: args.positionals, tasks: tasks, options: options)
        let mine = BatchInputs.jobs(all, inShard: shard.index, of: shard.count)
        let worker = BatchWorker(threads: threads, model: model, lanes: try FilesAtOnce.count(args, threads: threads, files: mine.count),
                                 voices: NotesLibrary.namedVoices())
        return try await runShard(mine, of: all.count, shard: shard, worker: worker, folder: BatchOutputFolder(path: output),
                                  progress: StandardError.isTerminal && !args.flag("no-progress"))
    }

    static func readTasks(_ args: ParsedArguments) throws -> [BatchTask] {
        guard let list = args.value("tasks") else { return [.transcribe] }
        return try list.split(separator: ",").map { name in
            guard let task = BatchTask(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                let known = BatchTask.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError(message: "unknown task '\(name)' (tasks: \(known))", path: args.path)
            }
            return task
        }
    }

    /// The worker loop: a line in, a line out, until standard input ends.
    static func serveStandardInput(_ worker: BatchWorker, tasks: [BatchTask], options: BatchOptions) async -> Int32 {
        var number = 0
        var lines = BoundedLines()
        while let next = lines.next() {
            number += 1
            guard case let .text(line) = next else {
                guard case let .tooLong(bytes) = next else { continue }
                let problem = "is \(bytes) bytes long; a job line is read up to \(InputLimits.batchLineBytes) bytes"
                let result = BatchResult(id: nil, path: nil, ok: false, error: BatchError.badJob(line: number, problem: problem).localizedDescription)
                StandardOutput.write(result.line + "\n")
                continue
            }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let result: BatchResult
            do {
                var job = try BatchJob.parse(line: line, number: number, tasks: tasks, options: options)
                if job.options.language == nil { job.options.language = options.language }
                result = await worker.run(job)
            } catch {
                result = BatchResult(id: BatchJob.id(inBadLine: line), path: nil, ok: false, error: error.localizedDescription)
            }
            StandardOutput.write(result.line + "\n")
        }
        return 0
    }

    static func runShard(_ jobs: [BatchJob], of total: Int, shard: (index: Int, count: Int), worker: BatchWorker,
                         folder: BatchOutputFolder, progress: Bool) async throws -> Int32 {
        let bar = ProgressBar(label: "shard \(shard.index)/\(shard.count)", total: Double(max(jobs.count, 1)), enabled: progress)
        let started = Date()
        var (done, skipped, failed, audio) = (0, 0, 0, 0.0)
        let finished = Locked(0)
        // `worker.lanes` files at once; their results are printed in the order of the jobs
        try await InOrderLanes.run(count: jobs.count, lanes: worker.lanes, work: { n, lane -> Result<(BatchResult, Bool), Error> in
            let job = jobs[n]
            let file = try? folder.resultFile(for: job)
            var result: BatchResult, ranNow = false
            if let file, var kept = folder.kept(at: file), kept.ok {
                (kept.id, kept.path) = (job.id, job.path)
                result = kept
            } else {
                result = await worker.run(job, lane: lane)
                ranNow = true
                // a result that cannot be kept (a full disk) stops the run, as it is printed
                if result.ok, let file {
                    do { try folder.keep(result, at: file) } catch { return .failure(error) }
                }
            }
            bar.update(Double(finished.withLock { $0 += 1; return $0 }), detail: (job.path as NSString).lastPathComponent)
            return .success((result, ranNow))
        }, emit: { n, outcome in
            let (result, ranNow) = try outcome.get()
            if !ranNow { skipped += 1 } else if result.ok { done += 1 } else { failed += 1 }
            audio += result.duration ?? 0
            if !result.ok { CommandRunner.fail(result.error ?? "\(jobs[n].path): failed") }
            StandardOutput.write(result.line + "\n")
        })
        bar.finish()
        let seconds = Date().timeIntervalSince(started)
        StandardError.write(String(format: "shard %d/%d: %d of %d files — %d done now, %d done before, %d failed; %.1f s of audio in %.1f s\n",
                                   shard.index, shard.count, jobs.count, total, done, skipped, failed, audio, seconds))
        return failed == 0 ? 0 : 1
    }
}
