package riffengine

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// callerText gives the text of an error of the store for a caller (a
// 503, GET /v1/server): what failed, not where on disk. The path of each
// file error in it (the data folder, a temporary file) is left out; the
// log line of the failure has the whole error.
func callerText(err error) string {
	if err == nil {
		return ""
	}
	text := err.Error()
	for e := err; e != nil; {
		var pathErr *fs.PathError
		var linkErr *os.LinkError
		switch {
		case errors.As(e, &pathErr):
			text = strings.ReplaceAll(text, pathErr.Error(), pathErr.Op+": "+pathErr.Err.Error())
			e = pathErr.Err
		case errors.As(e, &linkErr):
			text = strings.ReplaceAll(text, linkErr.Error(), linkErr.Op+": "+linkErr.Err.Error())
			e = linkErr.Err
		default:
			e = nil
		}
	}
	return text
}
