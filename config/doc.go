// Package config decodes .github/template-verify.yml strictly and holds the
// defaults that fit the datasmith layout when the file is absent.
//
// Decoding rejects unknown keys and wrong types with an error that names the
// file and line; nothing is ignored silently.
package config
