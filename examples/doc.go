// Package examples holds small programs that embed the libraries of riff:
// the engine with RIFF_DIR, and riffstate alone in a tool.
package examples
