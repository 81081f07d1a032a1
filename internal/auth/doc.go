// Package auth holds the credential primitives: argon2id password hashes and
// the signed bearer tokens used as API key values and login tokens.
package auth
