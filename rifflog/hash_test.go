package rifflog_test

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
)

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// replaceField sets the string value of a field of a JSON line.
func replaceField(line, field, value string) string {
	re := regexp.MustCompile(`"` + field + `":"[0-9a-f]*"`)
	return re.ReplaceAllString(line, `"`+field+`":"`+value+`"`)
}
