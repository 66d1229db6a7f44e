// Package jsonfast decodes the common shapes of request bodies without
// reflection. Its Decoder takes only plain JSON (members without escapes
// in their names or values, no null where a value is expected, no
// duplicate member) and reports false on anything else; the caller then
// decodes the body with the reflective decoder, whose result and errors
// are the ones to give. What it does decode, it decodes as
// sigs.k8s.io/json's strict decoder does, with nothing strict to report.
package jsonfast
