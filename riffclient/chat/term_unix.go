//go:build unix

package chat

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// Terminal is the terminal of a chat: its input and output are one
// terminal. [OpenTerminal] gives it.
type Terminal struct {
	in, out *os.File
}

// OpenTerminal gives the terminal of in and out, or false when one of
// them is not a terminal (a pipe): then the chat has no prompt.
func OpenTerminal(in, out *os.File) (*Terminal, bool) {
	if !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return nil, false
	}
	return &Terminal{in: in, out: out}, true
}

// size gives the width and height of the terminal in cells.
func (t *Terminal) size() (int, int) {
	w, h, err := term.GetSize(int(t.out.Fd()))
	if err != nil || w <= 0 {
		return 80, 24
	}
	return w, h
}

// raw puts the terminal in raw mode, and gives the function that puts
// it back.
func (t *Terminal) raw() (func(), error) {
	state, err := term.MakeRaw(int(t.in.Fd()))
	if err != nil {
		return nil, err
	}
	return func() { _ = term.Restore(int(t.in.Fd()), state) }, nil
}

// resizes gives a channel of the resizes of the terminal (SIGWINCH), and
// the function that stops it.
func (t *Terminal) resizes() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	return ch, func() { signal.Stop(ch) }
}

// openInput gives a reader of the input that its close unblocks: a copy
// of the descriptor in non-blocking mode, so that the runtime polls it.
// done puts the input back to blocking mode.
func openInput(f *os.File) (*os.File, func()) {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f, func() {}
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return f, func() {}
	}
	return os.NewFile(uintptr(fd), f.Name()), func() { _ = syscall.SetNonblock(int(f.Fd()), false) }
}
