// The process that owns a language model for Earshot (see LanguageRunnerService): started by the library,
// one per model, never by hand. Usage: earshot-language-runner chat [default|small] | embed [--threads N]
import EarshotLanguage
import Foundation

exit(LanguageRunnerService.main(Array(CommandLine.arguments.dropFirst())))
