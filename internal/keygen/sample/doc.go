// Package sample holds entities that exercise every feature of keygen;
// its generated file is keygen's golden output, and its tests check the
// generated code's behaviour.
package sample

//go:generate go run github.com/tablekit/tablekit/keys/keygen
