package wire

import (
	"bytes"
	"encoding/json"
)

// The replies of a claim and a release as JSON written by hand, byte for
// byte what json.Encoder with SetEscapeHTML(false) writes for them, with
// its newline (riffengine's TestTheRepliesByHandAreTheBytesOfTheEncoder).
// The URI in each carries each claim of its session, so its writer comes
// as a function that appends it straight into the reply: the server
// writes it from its state, with no copy of the claims (docs/
// performance.md, "The pile-up").

// AppendClaimReply appends the JSON of the ClaimReply whose holder uri
// appends (as name.SessionURI.AppendJSON writes it), with warning and
// text.
func AppendClaimReply(dst []byte, uri func([]byte) []byte, warning, text string) []byte {
	dst = append(dst, `{"holder":`...)
	dst = uri(dst)
	if warning != "" {
		dst = append(dst, `,"warning":`...)
		dst = AppendString(dst, warning)
	}
	dst = append(dst, `,"text":`...)
	dst = AppendString(dst, text)
	return append(dst, "}\n"...)
}

// AppendReleaseReply appends the JSON of the ReleaseReply whose URI uri
// appends (as name.SessionURI.AppendJSON writes it), with mustClear and
// text.
func AppendReleaseReply(dst []byte, uri func([]byte) []byte, mustClear bool, text string) []byte {
	dst = append(dst, `{"uri":`...)
	dst = uri(dst)
	if mustClear {
		dst = append(dst, `,"must_clear":true`...)
	}
	dst = append(dst, `,"text":`...)
	dst = AppendString(dst, text)
	return append(dst, "}\n"...)
}

// AppendString appends s as json.Encoder with SetEscapeHTML(false)
// writes a string: the plain ASCII by itself, anything else by the
// encoder (control characters, quotes, U+2028, bytes that are not
// UTF-8).
func AppendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
