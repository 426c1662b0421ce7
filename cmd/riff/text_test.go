package main

import "github.com/como-technologies/riff/riffclient/render"

// bodyIndent is the indent of the body of a message in riff tail, as the
// pipe tests look for it.
const bodyIndent = render.BodyIndent
