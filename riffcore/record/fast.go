package record

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/selector"
)

// The fast path of Decode.
//
// decodeFast reads a line with a scan of its own and the parsers of the
// names, with no reflection. It reads only the forms that it can read
// exactly as decodeSlow (encoding/json, checkFields and the UnmarshalJSON
// of each type) would: JSON that it checks byte for byte as it reads it,
// strings with no escape, each key once and in its own case, numbers
// with no fraction and no exponent, true and false, and values that read
// with no error and as no value of a later build. For each other form
// (an escape, null, a key twice or in another case, a value that is
// other or that does not read...) it reports false and Decode takes the
// slow path, which stays the reference and gives the errors. The
// differential tests and FuzzFastDecodeAgrees check that the two agree.

// bodyKeys gives the keys of the body of a change of kind k that the fast
// path reads, each list separated by spaces: required, the key of each
// field with no omitempty or omitzero (checkFields asks for each), and
// optional, the others. ok is false for a kind that the fast path does
// not read. A test checks the lists against the struct tags.
func bodyKeys(k Kind) (required, optional string, ok bool) {
	switch k {
	case KindRiffMade:
		return "riff", "", true
	case KindSessionStarted:
		return "session reason", "worker", true
	case KindSessionForgotten:
		return "session", "", true
	case KindJoinedThread, KindLeftThread:
		return "session thread", "", true
	case KindPosted:
		return "thread seq sender kind payload", "to key lead sig woken", true
	case KindClaimed:
		return "session thread item", "", true
	case KindReleased:
		return "session thread item", "must_clear", true
	case KindLeadSet:
		return "session thread", "old", true
	case KindPauseSet:
		return "scope state", "", true
	case KindItemHeld:
		return "thread item reason", "", true
	case KindItemFreed:
		return "thread item", "", true
	case KindPlanSet:
		return "thread plan", "", true
	case KindPlanEnded:
		return "thread", "", true
	case KindNotesSet:
		return "user thread text", "", true
	case KindPersonJoined:
		return "user email", "", true
	case KindMemberInvited, KindMemberRemoved, KindOwnerSet, KindOwnerAsked, KindOwnerDenied,
		KindOwnerEnded, KindSigninsEnded:
		return "email", "", true
	case KindAdminSet:
		return "email admin", "", true
	case KindSettingChanged:
		return "", "idle_workers", true
	}
	return "", "", false
}

// idleWorkersKeys are the keys of IdleWorkers, each one required.
const idleWorkersKeys = "user host repo count"

// envelopeKeys are the keys of the envelope.
const envelopeKeys = "position written_at_ms by command call change"

// decodeFast reads a line on the fast path; ok is false for each line
// that it does not read exactly as decodeSlow, which then decides.
func decodeFast(line []byte, d *Decoder) (rec Record, ok bool) {
	r := reader{b: line, d: d}
	var seen keySet
	var change []byte
	ok = r.object(func(key []byte) bool {
		i := wordIndex(envelopeKeys, key)
		if i < 0 {
			return r.unknown(key, envelopeKeys, "")
		}
		if !seen.add(i) {
			return false
		}
		var ok bool
		switch string(key) {
		case "position":
			rec.Position, ok = r.uint64()
		case "written_at_ms":
			rec.WrittenAtMs, ok = r.int64()
		case "by":
			rec.By, ok = r.by()
		case "command":
			rec.Command, ok = r.name()
		case "call":
			rec.Call, ok = r.str()
		case "change":
			start := r.space()
			rec.Change, ok = r.change()
			change = r.b[start:r.i]
		}
		return ok
	})
	if !ok || change == nil || r.space() != len(r.b) {
		return Record{}, false
	}
	if o, isOther := rec.Change.(Other); isOther {
		o.Raw = bytes.Clone(change)
		rec.Change = o
	}
	return rec, true
}

// change reads {"KIND":{...}}: a kind that this build does not know
// reads as Other, with no Raw yet (the caller sets it).
func (r *reader) change() (c Change, ok bool) {
	n := 0
	ok = r.object(func(key []byte) bool {
		if n++; n > 1 {
			return false
		}
		if _, _, known := bodyKeys(Kind(key)); known {
			c, ok = r.changeBody(Kind(key))
			return ok
		}
		for _, k := range Kinds() {
			if string(k) == string(key) {
				return false // a kind that the fast path does not read
			}
		}
		c = Other{Name: Kind(key)}
		return r.skip()
	})
	return c, ok && n == 1
}

// changeBody reads the body of a change of a kind of bodyKeys.
func (r *reader) changeBody(k Kind) (Change, bool) {
	switch k {
	case KindRiffMade:
		var c RiffMade
		ok := r.body(k, func(key []byte) (ok bool) {
			c.Riff, ok = r.str()
			return ok
		})
		return c, ok
	case KindSessionStarted:
		var c SessionStarted
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "session":
				c.Session, ok = r.uri()
			case "reason":
				var s string
				if s, ok = r.name(); ok {
					if c.Reason, _ = ParseReason(s); c.Reason == "" {
						c.Reason = ReasonOther
					}
				}
			case "worker":
				c.Worker, ok = r.boolean()
			}
			return ok
		})
		return c, ok
	case KindSessionForgotten:
		var c SessionForgotten
		ok := r.body(k, func(key []byte) (ok bool) {
			c.Session, ok = r.uri()
			return ok
		})
		return c, ok
	case KindJoinedThread, KindLeftThread:
		var session name.SessionURI
		var thread name.Thread
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "session":
				session, ok = r.uri()
			case "thread":
				thread, ok = r.thread()
			}
			return ok
		})
		if k == KindLeftThread {
			return LeftThread{session, thread}, ok
		}
		return JoinedThread{session, thread}, ok
	case KindPosted:
		var c Posted
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "thread":
				c.Thread, ok = r.thread()
			case "seq":
				c.Seq, ok = r.uint64()
			case "sender":
				c.Sender, ok = r.uri()
			case "kind":
				var s string
				if s, ok = r.name(); ok {
					if c.Type, _ = ParseMessageKind(s); c.Type == "" {
						c.Type = MessageOther
					}
				}
			case "to":
				c.To, ok = r.selectors()
			case "key":
				c.Key, ok = r.str()
			case "lead":
				c.Lead, ok = r.boolean()
			case "payload":
				c.Payload, ok = r.base64()
			case "sig":
				c.Sig, ok = r.str()
			case "woken":
				c.Woken, ok = r.whoList()
			}
			return ok
		})
		return c, ok
	case KindClaimed:
		var c Claimed
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "session":
				c.Session, ok = r.uri()
			case "thread":
				c.Thread, ok = r.thread()
			case "item":
				c.Item, ok = r.item()
			}
			return ok
		})
		return c, ok
	case KindReleased:
		var c Released
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "session":
				c.Session, ok = r.uri()
			case "thread":
				c.Thread, ok = r.thread()
			case "item":
				c.Item, ok = r.item()
			case "must_clear":
				c.MustClear, ok = r.boolean()
			}
			return ok
		})
		return c, ok
	case KindLeadSet:
		var c LeadSet
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "session":
				c.Session, ok = r.uri()
			case "thread":
				c.Thread, ok = r.thread()
			case "old":
				var w name.Who
				if w, ok = r.who(); ok {
					c.Old = &w
				}
			}
			return ok
		})
		return c, ok
	case KindPauseSet:
		var c PauseSet
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "scope":
				c.Scope, ok = r.scope()
			case "state":
				var s []byte
				if s, ok = r.text(); ok {
					c.State = PauseState(s)
					ok = c.State == Paused || c.State == Running
				}
			}
			return ok
		})
		return c, ok
	case KindItemHeld:
		var c ItemHeld
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "thread":
				c.Thread, ok = r.thread()
			case "item":
				c.Item, ok = r.item()
			case "reason":
				c.Reason, ok = r.str()
			}
			return ok
		})
		return c, ok
	case KindItemFreed:
		var c ItemFreed
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "thread":
				c.Thread, ok = r.thread()
			case "item":
				c.Item, ok = r.item()
			}
			return ok
		})
		return c, ok
	case KindPlanSet:
		var c PlanSet
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "thread":
				c.Thread, ok = r.thread()
			case "plan":
				c.Plan, ok = r.str()
			}
			return ok
		})
		return c, ok
	case KindPlanEnded:
		var c PlanEnded
		ok := r.body(k, func(key []byte) (ok bool) {
			c.Thread, ok = r.thread()
			return ok
		})
		return c, ok
	case KindNotesSet:
		var c NotesSet
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "user":
				c.User, ok = r.str()
			case "thread":
				c.Thread, ok = r.thread()
			case "text":
				c.Text, ok = r.str()
			}
			return ok
		})
		return c, ok
	case KindPersonJoined:
		var c PersonJoined
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "user":
				c.User, ok = r.str()
			case "email":
				c.Email, ok = r.str()
			}
			return ok
		})
		return c, ok
	case KindSettingChanged:
		var c SettingChanged
		ok := r.body(k, func([]byte) (ok bool) {
			c.IdleWorkers, ok = r.idleWorkers()
			return ok
		})
		return c, ok
	case KindAdminSet:
		var c AdminSet
		ok := r.body(k, func(key []byte) (ok bool) {
			switch string(key) {
			case "email":
				c.Email, ok = r.str()
			case "admin":
				c.Admin, ok = r.boolean()
			}
			return ok
		})
		return c, ok
	case KindMemberInvited, KindMemberRemoved, KindOwnerSet, KindOwnerAsked, KindOwnerDenied,
		KindOwnerEnded, KindSigninsEnded:
		var email string
		ok := r.body(k, func(key []byte) (ok bool) {
			email, ok = r.str()
			return ok
		})
		switch k {
		case KindMemberInvited:
			return MemberInvited{email}, ok
		case KindMemberRemoved:
			return MemberRemoved{email}, ok
		case KindOwnerSet:
			return OwnerSet{email}, ok
		case KindOwnerAsked:
			return OwnerAsked{email}, ok
		case KindOwnerDenied:
			return OwnerDenied{email}, ok
		case KindOwnerEnded:
			return OwnerEnded{email}, ok
		}
		return SigninsEnded{email}, ok
	}
	return nil, false
}

// reader reads JSON from b at i, byte for byte.
type reader struct {
	b []byte
	i int
	// d interns the names; nil interns nothing.
	d *Decoder
}

// space skips white space and gives the index after it.
func (r *reader) space() int {
	r.i = skipSpace(r.b, r.i)
	return r.i
}

// next reads the byte c after white space.
func (r *reader) next(c byte) bool {
	if r.space() < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// object reads an object, and calls field after each key: field reads
// the value. A key is read only when it is ASCII with no escape.
func (r *reader) object(field func(key []byte) bool) bool {
	if !r.next('{') {
		return false
	}
	if r.next('}') {
		return true
	}
	for {
		key, ascii := r.text()
		if key == nil || !ascii || !r.next(':') || !field(key) {
			return false
		}
		switch {
		case r.next(','):
		case r.next('}'):
			return true
		default:
			return false
		}
	}
}

// body reads the body of a change of kind k: each key of bodyKeys at
// most once, and each required key; field reads the value of a key of
// bodyKeys. A key that it does not know is skipped, as encoding/json
// does, unless it is one of the keys in another case.
func (r *reader) body(k Kind, field func(key []byte) bool) bool {
	required, optional, _ := bodyKeys(k)
	return r.fields(required, optional, field)
}

// fields reads an object with the keys of the lists: each key at most
// once, and each key of required.
func (r *reader) fields(required, optional string, field func(key []byte) bool) bool {
	var seen keySet
	ok := r.object(func(key []byte) bool {
		i := wordIndex(required, key)
		if i < 0 {
			if i = wordIndex(optional, key); i < 0 {
				return r.unknown(key, required, optional)
			}
			i += 32
		}
		return seen.add(i) && field(key)
	})
	// The required keys are the first of the set.
	n := 0
	if required != "" {
		n = strings.Count(required, " ") + 1
	}
	return ok && seen.first(n)
}

// unknown skips the value of a key that is not in the lists; a key that
// is one of theirs in another case is not read here.
func (r *reader) unknown(key []byte, lists ...string) bool {
	for _, list := range lists {
		for rest := list; rest != ""; {
			var known string
			known, rest = nextWord(rest)
			if strings.EqualFold(known, string(key)) {
				return false
			}
		}
	}
	return r.skip()
}

// skip skips a value that is JSON.
func (r *reader) skip() bool {
	start := r.space()
	end := valueEnd(r.b, start)
	if end < 0 || !json.Valid(r.b[start:end]) {
		return false
	}
	r.i = end
	return true
}

// text reads a string with no escape and no control character, that is
// UTF-8, and gives the bytes inside its quotes (not nil), and whether
// they are ASCII. It gives nil for each other form.
func (r *reader) text() (s []byte, ascii bool) {
	if r.space() >= len(r.b) || r.b[r.i] != '"' {
		return nil, false
	}
	start := r.i + 1
	j := start
	for ; j+8 <= len(r.b) && !special(binary.LittleEndian.Uint64(r.b[j:])); j += 8 {
	}
	ascii = true
	for ; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			s = r.b[start:j]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			r.i = j + 1
			return s, ascii
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// special says whether one of the 8 bytes of x is a quote, a backslash,
// a control character or not ASCII: the bytes that text reads one by
// one. (v-lo)&^v&hi is not zero when a byte of v is zero, and
// (x-lo*n)&^x&hi when a byte of x is below n, for n up to 128.
func special(x uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^(lo*'"'), x^(lo*'\\')
	return ((quote-lo)&^quote|(backslash-lo)&^backslash|(x-lo*0x20)&^x|x)&hi != 0
}

func (r *reader) str() (string, bool) {
	s, _ := r.text()
	return string(s), s != nil
}

// name reads a string as str does, interned: for the texts that come
// again from record to record.
func (r *reader) name() (string, bool) {
	s, _ := r.text()
	if s == nil {
		return "", false
	}
	return r.d.intern(s), true
}

// literal reads the literal word.
func (r *reader) literal(word string) bool {
	if r.space()+len(word) <= len(r.b) && string(r.b[r.i:r.i+len(word)]) == word {
		r.i += len(word)
		return true
	}
	return false
}

func (r *reader) boolean() (bool, bool) {
	switch {
	case r.literal("true"):
		return true, true
	case r.literal("false"):
		return false, true
	}
	return false, false
}

// digits reads the digits of a JSON number with no fraction and no
// exponent, and gives their value; ok is false when they do not fit.
func (r *reader) digits() (n uint64, ok bool) {
	start := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		d := uint64(r.b[r.i] - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
		r.i++
	}
	switch {
	case r.i == start, r.b[start] == '0' && r.i > start+1:
		return 0, false // no digit, or a leading zero
	case r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E'):
		return 0, false
	}
	return n, true
}

func (r *reader) uint64() (uint64, bool) {
	r.space()
	return r.digits()
}

func (r *reader) int64() (int64, bool) {
	neg := r.next('-')
	n, ok := r.digits()
	switch {
	case !ok:
		return 0, false
	case neg && n <= 1<<63:
		return int64(-n), true
	case !neg && n <= math.MaxInt64:
		return int64(n), true
	}
	return 0, false
}

// base64 reads a []byte as encoding/json does.
func (r *reader) base64() ([]byte, bool) {
	s, _ := r.text()
	if s == nil {
		return nil, false
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	return b[:n], err == nil
}

// idleWorkers reads an object of IdleWorkers; checkFields asks for each
// of its keys.
func (r *reader) idleWorkers() (*IdleWorkers, bool) {
	var w IdleWorkers
	ok := r.fields(idleWorkersKeys, "", func(key []byte) (ok bool) {
		switch string(key) {
		case "user":
			w.User, ok = r.str()
		case "host":
			w.Host, ok = r.str()
		case "repo":
			var s string
			if s, ok = r.str(); ok {
				var err error
				w.Repo, err = name.ParseRepo(s)
				ok = err == nil
			}
		case "count":
			var n int64
			n, ok = r.int64()
			w.Count = int(n)
			ok = ok && int64(w.Count) == n
		}
		return ok
	})
	return &w, ok
}

// uri reads a name.SessionURI as its UnmarshalJSON does.
func (r *reader) uri() (name.SessionURI, bool) {
	s, _ := r.text()
	if len(s) == 0 {
		return name.SessionURI{}, s != nil
	}
	u, err := name.ParseURI(r.d.intern(s))
	return u, err == nil
}

// parsed reads a string, interned, and parses it with parse, as the
// UnmarshalJSON of its type does.
func parsed[T any](r *reader, parse func(string) (T, error)) (T, bool) {
	s, _ := r.text()
	if s == nil {
		var zero T
		return zero, false
	}
	v, err := parse(r.d.intern(s))
	return v, err == nil
}

func (r *reader) thread() (name.Thread, bool) { return parsed(r, name.ParseThread) }
func (r *reader) item() (name.Item, bool)     { return parsed(r, name.ParseItem) }
func (r *reader) who() (name.Who, bool)       { return parsed(r, name.ParseWho) }

// array reads an array; elem reads each value. An empty array gives a
// list that is empty but not nil, as encoding/json does.
func (r *reader) array(elem func() bool) bool {
	if !r.next('[') {
		return false
	}
	if r.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch {
		case r.next(','):
		case r.next(']'):
			return true
		default:
			return false
		}
	}
}

func (r *reader) whoList() ([]name.Who, bool) {
	list := []name.Who{}
	ok := r.array(func() bool {
		w, ok := r.who()
		list = append(list, w)
		return ok
	})
	return list, ok
}

func (r *reader) selectors() ([]selector.Selector, bool) {
	list := []selector.Selector{}
	ok := r.array(func() bool {
		s, ok := r.selector()
		list = append(list, s)
		return ok
	})
	return list, ok
}

// selectorKeys are the fields of a selector of this build.
const selectorKeys = "user session host repo worktree claim lead person"

// selector reads a selector of this build, as its UnmarshalJSON does: a
// non-empty string for each text field, a repository and an item that
// parse, true or false. Each other form is a selector other, which the
// fast path does not read.
func (r *reader) selector() (selector.Selector, bool) {
	var s selector.Selector
	var seen keySet
	ok := r.object(func(key []byte) bool {
		if !seen.add(wordIndex(selectorKeys, key)) {
			return false
		}
		if k := string(key); k == "lead" || k == "person" {
			b, ok := r.boolean()
			if k == "lead" {
				s.Lead = &b
			} else {
				s.Person = &b
			}
			return ok
		}
		text, ok := r.str()
		if !ok || text == "" {
			return false
		}
		var err error
		switch string(key) {
		case "user":
			s.User = text
		case "session":
			s.Session = text
		case "host":
			s.Host = text
		case "repo":
			s.Repo, err = name.ParseRepo(text)
		case "worktree":
			s.Worktree = text
		case "claim":
			s.Claim, err = name.ParseItem(text)
		}
		return err == nil
	})
	return s, ok
}

// scope reads "riff" or {"repository":"OWNER/REPO"}, as Scope's
// UnmarshalJSON does; each other form is a scope other, which the fast
// path does not read.
func (r *reader) scope() (Scope, bool) {
	if r.literal(`"riff"`) {
		return RiffScope(), true
	}
	var repo name.Repo
	n := 0
	ok := r.object(func(key []byte) bool {
		if n++; n > 1 || string(key) != "repository" {
			return false
		}
		s, ok := r.str()
		if !ok {
			return false
		}
		var err error
		repo, err = name.ParseRepo(s)
		return err == nil && repo.InGit()
	})
	return RepoScope(repo), ok && n == 1
}

// by reads the cause as By's UnmarshalJSON does; each form that reads as
// ClassOther is left to the slow path.
func (r *reader) by() (*By, bool) {
	var b *By
	n := 0
	ok := r.object(func(key []byte) bool {
		if n++; n > 1 {
			return false
		}
		if string(key) == "server" {
			b = &By{Class: ClassServer}
			return r.literal("true")
		}
		s, ok := r.name()
		if !ok {
			return false
		}
		switch string(key) {
		case "session":
			w, err := name.ParseWho(s)
			b = &By{Class: ClassSession, Who: w}
			return err == nil && !w.IsPerson()
		case "person", "sign_in":
			b = &By{Class: ClassPerson, Who: name.Who{User: s}}
			if key[0] == 's' {
				b.Class = ClassSignIn
			}
			return name.CheckUser(s) == nil
		}
		return false
	})
	return b, ok && n == 1
}

// keySet holds the keys of an object that were read, each by its index
// in its list (wordIndex).
type keySet uint64

// add adds the key i; it is false for a key that is already there, or
// for no key (-1).
func (s *keySet) add(i int) bool {
	if i < 0 || *s&(1<<i) != 0 {
		return false
	}
	*s |= 1 << i
	return true
}

// first says whether the set holds each of the keys 0 to n-1.
func (s keySet) first(n int) bool {
	want := keySet(1)<<n - 1
	return s&want == want
}

// wordIndex gives the index of key in a list of words separated by
// spaces, or -1.
func wordIndex(list string, key []byte) int {
	n, start := 0, 0
	for i := 0; i < len(list); i++ {
		if list[i] != ' ' {
			continue
		}
		if i-start == len(key) && list[start:i] == string(key) {
			return n
		}
		n, start = n+1, i+1
	}
	if list != "" && list[start:] == string(key) {
		return n
	}
	return -1
}

// nextWord gives the first word of a list separated by spaces, and the
// rest of the list. It is strings.Cut for the short lists of this file.
func nextWord(list string) (word, rest string) {
	for i := 0; i < len(list); i++ {
		if list[i] == ' ' {
			return list[:i], list[i+1:]
		}
	}
	return list, ""
}
