package sample

import "errors"

var errNotS = errors.New("sample: not an S")
