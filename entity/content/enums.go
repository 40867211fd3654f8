package content

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrUnknownEnum is matched by every [*EnumError].
//
// Style, Platform and Status are parts of keys, so the codec stores
// them as plain strings; [GeneratedImage.Validate] and [Job.Validate]
// check them after decoding (every function of this package and of
// query/content does). Kind is checked by the codec itself.
var ErrUnknownEnum = errors.New("content: unknown enum value")

// EnumError reports a value outside an enum, found when encoding a value
// or decoding an item.
type EnumError struct {
	Enum  string // "Style", "Platform", "Kind", "Status"
	Value string
}

func (e *EnumError) Error() string { return fmt.Sprintf("content: unknown %s %q", e.Enum, e.Value) }

// Unwrap returns [ErrUnknownEnum].
func (e *EnumError) Unwrap() error { return ErrUnknownEnum }

// Style is the look of a generated image.
type Style string

// The styles of seed 003.
const (
	StyleFancy  Style = "FANCY"
	StyleSimple Style = "SIMPLE"
	StyleTrendy Style = "TRENDY"
)

// Styles lists every style.
var Styles = []Style{StyleFancy, StyleSimple, StyleTrendy}

// Valid reports whether s is a known style.
func (s Style) Valid() bool { return s == StyleFancy || s == StyleSimple || s == StyleTrendy }

// Platform is where an image is published.
type Platform string

// The platforms of seed 003.
const (
	PlatformInstagram Platform = "INSTAGRAM"
	PlatformFacebook  Platform = "FACEBOOK"
	PlatformKakao     Platform = "KAKAO"
	PlatformBlog      Platform = "BLOG"
)

// Platforms lists every platform.
var Platforms = []Platform{PlatformInstagram, PlatformFacebook, PlatformKakao, PlatformBlog}

// Valid reports whether p is a known platform.
func (p Platform) Valid() bool {
	switch p {
	case PlatformInstagram, PlatformFacebook, PlatformKakao, PlatformBlog:
		return true
	}
	return false
}

// DefaultResolution returns the seed's default image size of platform p
// in pixels: INSTAGRAM 1080x1080, FACEBOOK 1200x628, KAKAO 800x800, BLOG
// 800x600; ok is false for an unknown platform.
func DefaultResolution(p Platform) (width, height int, ok bool) {
	switch p {
	case PlatformInstagram:
		return 1080, 1080, true
	case PlatformFacebook:
		return 1200, 628, true
	case PlatformKakao:
		return 800, 800, true
	case PlatformBlog:
		return 800, 600, true
	}
	return 0, 0, false
}

// Kind is the kind of a job.
type Kind string

// The job types of seed 003.
const (
	KindImageGeneration   Kind = "IMAGE_GENERATION"
	KindImageRegeneration Kind = "IMAGE_REGENERATION"
)

// Valid reports whether t is a known job type.
func (t Kind) Valid() bool { return t == KindImageGeneration || t == KindImageRegeneration }

// Status is the state of a job.
type Status string

// The job statuses of seed 003.
const (
	StatusPending    Status = "PENDING"
	StatusProcessing Status = "PROCESSING"
	StatusCompleted  Status = "COMPLETED"
	StatusFailed     Status = "FAILED"
)

// Statuses lists every status in lifecycle order.
var Statuses = []Status{StatusPending, StatusProcessing, StatusCompleted, StatusFailed}

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	switch s {
	case StatusPending, StatusProcessing, StatusCompleted, StatusFailed:
		return true
	}
	return false
}

// Final reports whether s ends a job.
func (s Status) Final() bool { return s == StatusCompleted || s == StatusFailed }

// encEnum encodes an enum value; "" encodes as absent (nil).
func encEnum(enum, v string, ok bool) (types.AttributeValue, error) {
	if v == "" {
		return nil, nil
	}
	if !ok {
		return nil, &EnumError{Enum: enum, Value: v}
	}
	return &types.AttributeValueMemberS{Value: v}, nil
}

func decEnum(enum string, av types.AttributeValue, valid func(string) bool) (string, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		if !valid(v.Value) {
			return "", &EnumError{Enum: enum, Value: v.Value}
		}
		return v.Value, nil
	case *types.AttributeValueMemberNULL:
		return "", nil
	}
	return "", fmt.Errorf("content: %s must be a string, got %T", enum, av)
}

// MarshalDynamoDBAttributeValue encodes t; an unknown type is an *EnumError.
func (t Kind) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return encEnum("Kind", string(t), t.Valid())
}

// UnmarshalDynamoDBAttributeValue decodes t; an unknown type is an *EnumError.
func (t *Kind) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	v, err := decEnum("Kind", av, func(x string) bool { return Kind(x).Valid() })
	*t = Kind(v)
	return err
}
