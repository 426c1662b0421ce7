module github.com/como-technologies/riff/rifflog

go 1.26
