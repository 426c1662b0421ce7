//go:build !unix

package chat

import "os"

// Terminal is the terminal of a chat. On this system the chat has no
// prompt: it runs as through a pipe.
type Terminal struct{}

// OpenTerminal gives false on this system: the chat has no prompt.
func OpenTerminal(in, out *os.File) (*Terminal, bool) { return nil, false }

func (t *Terminal) size() (int, int)                    { return 80, 24 }
func (t *Terminal) raw() (func(), error)                { return func() {}, nil }
func (t *Terminal) resizes() (<-chan os.Signal, func()) { return nil, func() {} }

func openInput(f *os.File) (*os.File, func()) { return f, func() {} }
