// Package chat is riff chat: the thread chat of the people of a riff and
// their leads, in the style of IRC, as a program that runs in a terminal
// for hours.
//
// It holds the line model of the chat (what a typed line is: a line, an
// action /me TEXT, a line that starts with / as //, /quit, or a command
// that the chat refuses), the addresses of a line (@lead, @USER,
// @lead:REPO, @USER:REPO) and the leads of the riff they name, the line
// editor of the prompt [riff] > (cell widths of wide and combining
// characters), and [Run], which shows the history, then each new line
// above the prompt, and sends each typed line.
//
// # Basics
//
// [Parse] reads a typed line; [Resolve] turns its addresses into the to
// list of the post, from the leads of the riff ([LeadsOf] of a who reply):
// a line with no name wakes each lead of the person, @USER each lead of
// USER, @USER:REPO the one lead of USER in REPO. When no lead or two leads
// fit a name, Resolve gives the text that says so and nothing is sent.
//
// [Run] follows the thread with riffclient's TailKept: the kept messages
// first, then each new one, once and in order across breaks, with
// (reconnecting…) and (back) and the yellow line of the lost messages. A
// line that you send shows once, when the server gives it back.
//
// # Caveats
//
// It never decides a rule of the riff: who wakes is the server's rule,
// from the to list. It reads the terminal only through [Terminal]; a
// program with no terminal (a pipe) gets each line whole and sends each
// line of its input.
package chat
