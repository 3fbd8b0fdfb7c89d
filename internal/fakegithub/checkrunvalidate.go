package fakegithub

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// validateRun checks a create (create true) or update body like GitHub.
func validateRun(in runInput, create bool) []fieldError {
	var errs []fieldError
	bad := func(field, code, msg string) {
		errs = append(errs, fieldError{Resource: "CheckRun", Field: field, Code: code, Message: msg})
	}
	if create && (in.Name == nil || *in.Name == "") {
		bad("name", "missing_field", "name is missing")
	}
	if in.Name != nil && utf8.RuneCountInString(*in.Name) > maxNameChars {
		bad("name", "custom", "name is too long (maximum is 255 characters)")
	}
	if create && (in.HeadSHA == nil || *in.HeadSHA == "") {
		bad("head_sha", "missing_field", "head_sha is missing")
	}
	if in.Status != nil && !slices.Contains(statuses, *in.Status) {
		bad("status", "invalid", fmt.Sprintf("status %q is not one of %v", *in.Status, statuses))
	}
	if in.Conclusion != nil && !slices.Contains(conclusions, *in.Conclusion) {
		bad("conclusion", "invalid", fmt.Sprintf("conclusion %q is not one of %v", *in.Conclusion, conclusions))
	}
	if in.Status != nil && *in.Status == "completed" && in.Conclusion == nil {
		bad("conclusion", "missing_field", "conclusion is required when status is completed")
	}
	if o := in.Output; o != nil {
		if o.Title == nil {
			bad("output.title", "missing_field", "output.title is missing")
		} else if utf8.RuneCountInString(*o.Title) > MaxTitleChars {
			bad("output.title", "custom", "output.title is too long (maximum is 255 characters)")
		}
		if o.Summary == nil {
			bad("output.summary", "missing_field", "output.summary is missing")
		} else if len(*o.Summary) > MaxOutputBytes {
			bad("summary", "custom", fmt.Sprintf("summary exceeds a maximum bytesize of %d", MaxOutputBytes))
		}
		if o.Text != nil && len(*o.Text) > MaxOutputBytes {
			bad("text", "custom", fmt.Sprintf("text exceeds a maximum bytesize of %d", MaxOutputBytes))
		}
		if len(o.Annotations) > MaxAnnotations {
			bad("output.annotations", "custom", fmt.Sprintf("only %d annotations are allowed per request; got %d", MaxAnnotations, len(o.Annotations)))
		}
		for i, a := range o.Annotations {
			errs = append(errs, validateAnnotation(i, a)...)
		}
	}
	return errs
}

func validateAnnotation(i int, a Annotation) []fieldError {
	var errs []fieldError
	bad := func(field, msg string) {
		errs = append(errs, fieldError{Resource: "CheckRun", Field: fmt.Sprintf("output.annotations[%d].%s", i, field), Code: "invalid", Message: msg})
	}
	if a.Path == "" {
		bad("path", "path is missing")
	}
	if a.StartLine < 1 {
		bad("start_line", "start_line must be 1 or more")
	}
	if a.EndLine < a.StartLine {
		bad("end_line", "end_line must not be before start_line")
	}
	if !slices.Contains(levels, a.AnnotationLevel) {
		bad("annotation_level", fmt.Sprintf("annotation_level %q is not one of %v", a.AnnotationLevel, levels))
	}
	if a.Message == "" {
		bad("message", "message is missing")
	}
	if len(a.Message) > MaxAnnotationBytes {
		bad("message", "message is too long (maximum is 64 KB, read as 64,000 bytes)")
	}
	if len(a.RawDetails) > MaxAnnotationBytes {
		bad("raw_details", "raw_details is too long (maximum is 64 KB, read as 64,000 bytes)")
	}
	if utf8.RuneCountInString(a.Title) > MaxTitleChars {
		bad("title", "title is too long (maximum is 255 characters)")
	}
	return errs
}
