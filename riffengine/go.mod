module github.com/como-technologies/riff/riffengine

go 1.26
