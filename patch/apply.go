package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/status"
)

// The media types of the three patch formats, the Content-Type of a PATCH
// request.
const (
	JSONPatchType           = "application/json-patch+json"
	MergePatchType          = "application/merge-patch+json"
	StrategicMergePatchType = "application/strategic-merge-patch+json"
)

// Kubernetes' limits on a JSON patch (k8s.io/apiserver
// pkg/endpoints/handlers/patch.go maxJSONPatchOperations, and the
// apiserver's JSONPatchMaxCopyBytes default).
const (
	// DefaultMaxOperations is the most operations one JSON patch may have.
	DefaultMaxOperations = 10000
	// DefaultMaxCopyBytes is the most bytes a JSON patch's copy operations
	// may add to the document, 3 MiB.
	DefaultMaxCopyBytes = 3 << 20
)

// Options configure Apply. The zero value applies JSON and merge patches
// with Kubernetes' limits and refuses strategic merge patches.
type Options struct {
	// Schema gives the patch strategies of the object's fields. Nil means
	// the type declares none, and a strategic merge patch is refused with
	// 415, as Kubernetes refuses it for custom resources.
	Schema *Schema

	// CheckFields decodes the patch strictly first, as Kubernetes does for
	// fieldValidation Warn and Strict (its default), and reports the
	// patch's own unknown and duplicate fields in Result.FieldProblems.
	// Without it the patch is decoded leniently, as for fieldValidation
	// Ignore.
	CheckFields bool

	// MaxOperations caps the operations of a JSON patch. Zero means
	// DefaultMaxOperations.
	MaxOperations int

	// MaxCopyBytes caps the bytes a JSON patch's copy operations add in
	// total. Zero means DefaultMaxCopyBytes.
	MaxCopyBytes int64

	// OtherMediaTypes are media types the caller accepts on PATCH besides
	// the ones Apply handles, such as application/apply-patch+yaml. They
	// are listed after Apply's own in the 415 for an unknown media type.
	OtherMediaTypes []string
}

// Result is a patched document.
type Result struct {
	// Doc is the patched document, JSON. Its members are not necessarily
	// in the original's order; the caller decodes it into its typed object
	// (and reports a failure there as Kubernetes does, as a 422 Invalid on
	// the field "patch").
	Doc []byte

	// FieldProblems are the unknown and duplicate fields of the patch
	// document itself, with CheckFields, in Kubernetes' words: those of a
	// JSON patch read `json patch unknown field "[0].valu"`. A server
	// sends them as warnings (Warn) or joins them to the object's own in a
	// 422 (Strict).
	FieldProblems []string
}

// Apply applies the PATCH body of the given Content-Type to doc, the JSON
// of the object as the client sees it, and returns the patched JSON or a
// *status.Error with the code, reason and message Kubernetes answers:
//
//   - 415 UnsupportedMediaType for a media type other than the three (or a
//     strategic merge patch without a Schema).
//   - 400 BadRequest for a patch that is not a document of its format:
//     "error decoding patch: <decoder error>" when CheckFields decodes it
//     (a strategic merge patch: the decoder error alone), else the error
//     of the format's own decoding, such as "Invalid JSON Patch" for a
//     merge patch that is not a JSON object or array.
//   - 413 RequestEntityTooLarge for a JSON patch of more than
//     MaxOperations operations.
//   - 422 Invalid for a JSON patch that cannot be applied to doc (a failed
//     test, a missing path, copies over MaxCopyBytes): Kubernetes sends
//     the generic message status.GenericInvalidMessage; the library's
//     reason is the error's cause (errors.Unwrap).
//
// Parameters after ';' in contentType are ignored, and the media type is
// compared exactly, as Kubernetes compares it.
func Apply(doc, body []byte, contentType string, opts Options) (Result, error) {
	mediaType, _, _ := strings.Cut(contentType, ";")
	switch {
	case mediaType == JSONPatchType:
		return applyJSONPatch(doc, body, &opts)
	case mediaType == MergePatchType:
		return applyMergePatch(doc, body, &opts)
	case mediaType == StrategicMergePatchType && opts.Schema != nil:
		return applyStrategic(doc, body, &opts)
	}
	accepted := []string{JSONPatchType, MergePatchType}
	if opts.Schema != nil {
		accepted = append(accepted, StrategicMergePatchType)
	}
	return Result{}, status.NewUnsupportedBodyMediaType(append(accepted, opts.OtherMediaTypes...)...)
}

// jsonPatchOp is the shape Kubernetes decodes a JSON patch's operations
// into to find unknown and duplicate fields.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// checkFields decodes body strictly into v and returns its unknown and
// duplicate fields. A body that does not decode is a 400 whose message is
// prefix followed by the decoder's error.
func checkFields(body []byte, v any, prefix string) ([]string, error) {
	problems, err := kjson.UnmarshalStrict(body, v)
	if err != nil {
		msg := err.Error()
		if _, ok := v.(*[]jsonPatchOp); ok {
			// The decoder names the Go type; Kubernetes' is declared in
			// its package "handlers".
			msg = strings.ReplaceAll(msg, "patch.jsonPatchOp", "handlers.jsonPatchOp")
		}
		return nil, status.NewBadRequest(prefix + msg)
	}
	if len(problems) == 0 {
		return nil, nil
	}
	texts := make([]string, len(problems))
	for i, p := range problems {
		texts[i] = p.Error()
	}
	return texts, nil
}

func applyJSONPatch(doc, body []byte, opts *Options) (Result, error) {
	var res Result
	if opts.CheckFields {
		var ops []jsonPatchOp
		problems, err := checkFields(body, &ops, "error decoding patch: ")
		if err != nil {
			return Result{}, err
		}
		for i := range problems {
			problems[i] = "json patch " + problems[i]
		}
		res.FieldProblems = problems
	}
	maxOps := opts.MaxOperations
	if maxOps <= 0 {
		maxOps = DefaultMaxOperations
	}
	p, err := jsonpatch.DecodePatch(body)
	if err != nil {
		// Kubernetes decodes a JSON patch with encoding/json and checks
		// its operations only while applying them; json-patch/v5 checks
		// them here. Decoding as Kubernetes does gives its message for a
		// body that is not a list of objects, and its order of checks
		// (the operation count first) for one whose operations are bad.
		var ops jsonpatch.Patch
		if err := json.Unmarshal(body, &ops); err != nil {
			return Result{}, status.NewBadRequest(err.Error())
		}
		if len(ops) > maxOps {
			return Result{}, tooManyOperations(maxOps, len(ops))
		}
		return Result{}, status.NewGenericInvalid(err)
	}
	if len(p) > maxOps {
		return Result{}, tooManyOperations(maxOps, len(p))
	}
	copyBytes := opts.MaxCopyBytes
	if copyBytes <= 0 {
		copyBytes = DefaultMaxCopyBytes
	}
	// The library's defaults, except the copy limit. Negative indices
	// (counting from the end of an array) stay on: Kubernetes' copy of the
	// library accepts them.
	ao := jsonpatch.NewApplyOptions()
	ao.SupportNegativeIndices = true
	ao.AccumulatedCopySizeLimit = copyBytes
	ao.EnsurePathExistsOnAdd = false
	ao.AllowMissingPathOnRemove = false
	out, err := applySafely(p, doc, ao)
	if err != nil {
		return Result{}, status.NewGenericInvalid(err)
	}
	res.Doc = out
	return res, nil
}

// errPatchPanicked stands for a panic of the JSON patch library on a
// malformed patch (v5.9.11 dereferences the missing value of a "test" of
// the whole document): the patch cannot apply, which is a 422, not a
// crashed request.
var errPatchPanicked = errors.New("patch: the JSON patch could not be applied")

// applySafely applies p, turning a panic of the library into an error.
func applySafely(p jsonpatch.Patch, doc []byte, ao *jsonpatch.ApplyOptions) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: %v", errPatchPanicked, r)
		}
	}()
	return p.ApplyWithOptions(doc, ao)
}

func tooManyOperations(limit, n int) error {
	return status.NewRequestEntityTooLarge(fmt.Sprintf(
		"The allowed maximum operations in a JSON patch is %d, got %d", limit, n))
}

func applyMergePatch(doc, body []byte, opts *Options) (Result, error) {
	var res Result
	if opts.CheckFields {
		var m map[string]any
		problems, err := checkFields(body, &m, "error decoding patch: ")
		if err != nil {
			return Result{}, err
		}
		res.FieldProblems = problems
	}
	// RFC 7386 lets any JSON value be a merge patch, and json-patch/v5
	// returns a scalar or null patch as the document. Kubernetes' copy of
	// the library refuses both as an invalid patch, so do we.
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return Result{}, status.NewBadRequest(jsonpatch.ErrBadJSONPatch.Error())
	}
	out, err := jsonpatch.MergePatch(doc, body)
	switch {
	case errors.Is(err, jsonpatch.ErrBadJSONPatch):
		return Result{}, status.NewBadRequest(err.Error())
	case err != nil:
		// The document is the server's own JSON.
		return Result{}, status.NewInternalError(err)
	}
	res.Doc = out
	return res, nil
}

func applyStrategic(doc, body []byte, opts *Options) (Result, error) {
	// Kubernetes decodes a strategic merge patch into a map first, strictly
	// or not, and answers a failure with the decoder's error alone.
	var m map[string]any
	problems, err := checkFields(body, &m, "")
	if err != nil {
		return Result{}, err
	}
	out, err := StrategicMergePatch(doc, body, opts.Schema)
	if err != nil {
		if errors.Is(err, ErrMalformed) {
			return Result{}, status.NewBadRequest(err.Error())
		}
		return Result{}, status.NewInternalError(err)
	}
	res := Result{Doc: out}
	if opts.CheckFields {
		res.FieldProblems = problems
	}
	return res, nil
}
