// The process that owns a language model for Earshot (see LanguageRunnerService): started by the library,
// one host per model and machine, which runs the worker; never by hand. Usage: earshot-language-runner [host] chat [default|small] | embed …
import EarshotLanguage
import Foundation

exit(LanguageRunnerService.main(Array(CommandLine.arguments.dropFirst())))
