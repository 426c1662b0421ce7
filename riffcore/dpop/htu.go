package dpop

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/como-technologies/riff/riffcore/quote"
)

// sameTarget compares the htu of a proof with the URL of the call, both
// normalised (RFC 9449 §4.3: the syntax-based and scheme-based
// normalisation of RFC 3986 §6.2.2 and §6.2.3), with no query and no
// fragment.
func sameTarget(htu, callURL string) error {
	want, err := targetURI(callURL)
	if err != nil {
		return fmt.Errorf("%w: the URL of the call: %w", ErrURL, err)
	}
	got, err := targetURI(htu)
	if err != nil {
		return fmt.Errorf("%w: htu: %w", ErrURL, err)
	}
	if got != want {
		return fmt.Errorf("%w: htu %s, want %s", ErrURL, quote.Input(got), quote.Input(want))
	}
	return nil
}

// targetURI gives the normal form of an http or https URL with no query,
// no fragment and no user: the scheme and the host in lower case, no
// default port, an empty path as "/", percent escapes of unreserved
// characters decoded and the others in upper case, and no dot segments.
func targetURI(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%s does not read as a URL", quote.Input(raw))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("%s is no http or https URL", quote.Input(raw))
	}
	if u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("%s has no host", quote.Input(raw))
	}
	if u.User != nil {
		return "", fmt.Errorf("a URL with a user is no target URI")
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" && !(scheme == "http" && port == "80") && !(scheme == "https" && port == "443") {
		host += ":" + port
	}
	path := removeDotSegments(normalEscapes(u.EscapedPath()))
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path, nil
}

// normalEscapes decodes each percent escape of an unreserved character
// (RFC 3986 §2.3) and writes the others with upper-case hex digits.
func normalEscapes(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			b.WriteByte(p[i])
			continue
		}
		c := unhex(p[i+1])<<4 | unhex(p[i+2])
		if isUnreserved(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(p[i+1 : i+3]))
		}
		i += 2
	}
	return b.String()
}

// removeDotSegments is the algorithm of RFC 3986 §5.2.4.
func removeDotSegments(in string) string {
	var out []string // each segment with its leading "/"
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			end := strings.IndexByte(in[1:], '/')
			if end < 0 {
				out = append(out, in)
				in = ""
			} else {
				out = append(out, in[:end+1])
				in = in[end+1:]
			}
		}
	}
	return strings.Join(out, "")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
