module github.com/como-technologies/riff/riffclient

go 1.26

require github.com/como-technologies/riff/riffcore v0.0.0

require github.com/google/go-cmp v0.7.0

replace github.com/como-technologies/riff/riffcore => ../riffcore
