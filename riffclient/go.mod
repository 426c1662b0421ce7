module github.com/como-technologies/riff/riffclient

go 1.26

require github.com/como-technologies/riff/riffcore v0.0.0

require github.com/google/go-cmp v0.7.0

require github.com/go-jose/go-jose/v4 v4.1.9 // indirect

replace github.com/como-technologies/riff/riffcore => ../riffcore
