package sample

import (
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Status is a named string type.
type Status string

// Count is a named integer type.
type Count int32

// Labels is a named string slice.
type Labels []string

// Upper is a custom type with its own attribute value methods: it is
// stored as an upper-case S.
type Upper struct{ V string }

// MarshalDynamoDBAttributeValue implements attributevalue.Marshaler.
func (u Upper) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberS{Value: strings.ToUpper(u.V)}, nil
}

// UnmarshalDynamoDBAttributeValue implements attributevalue.Unmarshaler.
func (u *Upper) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return errNotS
	}
	u.V = s.Value
	return nil
}

// Artifact mirrors seed 000's Artifact.
//
//keygen:entity ARTIFACT
//keygen:key PK=ART#{ArtifactID} SK=META
//keygen:gsi GSI1 GSI1PK=USR#{UserID}#ART GSI1SK={CreatedAt}
//keygen:gsi GSI2 GSI2PK=USR#{UserID}#PROJ#{ProjectID}#ART GSI2SK={CreatedAt}
type Artifact struct {
	ArtifactID string    `ddb:"artifact_id"`
	UserID     string    `ddb:"user_id"`
	ProjectID  string    `ddb:"project_id"`
	CreatedAt  time.Time `ddb:"created_at,created"`
}

// Segment mirrors seed 000's Segment: integer indexes sort numerically.
//
//keygen:entity SEGMENT
//keygen:key PK=WF#{WorkflowID} SK=SEG#{Index:6}
type Segment struct {
	WorkflowID string `ddb:"workflow_id"`
	Index      int    `ddb:"segment_index"`
	Text       string `ddb:"text,omitempty"`
}

// Request mirrors seed 004's Request, with a sparse GSI written once queued.
//
//keygen:entity REQUEST
//keygen:key PK=REQ#{RequestID} SK=META
//keygen:gsi GSI2 GSI2PK=EVENT#{EventID} GSI2SK=QAT#{QueuedAt}#REQ#{RequestID} sparse
//keygen:gsi Type_CreatedAt Type=REQUEST CreatedAt={CreatedAt}
type Request struct {
	RequestID string    `ddb:"requestId"`
	EventID   string    `ddb:"eventId"`
	Status    Status    `ddb:"status"`
	QueuedAt  time.Time `ddb:"queuedAt,omitempty"`
	CreatedAt time.Time `ddb:"CreatedAt,isosec,created"`
	UpdatedAt time.Time `ddb:"UpdatedAt,isonano,updated"`
	Version   int64     `ddb:"version,version"`
	ExpiresAt time.Time `ddb:"expiresAt,ttl,omitempty"`
}

// CorpInfo is a singleton with a constant key.
//
//keygen:entity CORP
//keygen:key PK=CORP#INFO SK=METADATA
type CorpInfo struct {
	Name string `ddb:"name"`
}

// Kitchen has a field of every supported type.
//
//keygen:entity KITCHEN
//keygen:key PK=K#{ID} SK=N#{N8}#{U16:5}#{At}
//keygen:lsi LSI1 LSI1SK=NEG#{I64:4}
type Kitchen struct {
	ID        string            `ddb:"id"`
	Flag      bool              `ddb:"flag"`
	I         int               `ddb:"i"`
	N8        int8              `ddb:"n8"`
	I16       int16             `ddb:"i16"`
	I32       int32             `ddb:"i32"`
	I64       int64             `ddb:"i64"`
	U         uint              `ddb:"u"`
	U8        uint8             `ddb:"u8"`
	U16       uint16            `ddb:"u16"`
	U32       uint32            `ddb:"u32"`
	U64       uint64            `ddb:"u64"`
	F32       float32           `ddb:"f32"`
	F64       float64           `ddb:"f64,omitempty"`
	At        time.Time         `ddb:"at"`
	AtMs      time.Time         `ddb:"atMs,unixms"`
	Blob      []byte            `ddb:"blob,omitempty"`
	List      []string          `ddb:"list"`
	Set       []string          `ddb:"set,set"`
	Labels    Labels            `ddb:"labels,set"`
	Map       map[string]string `ddb:"map"`
	Status    Status            `ddb:"status,omitempty"`
	Count     Count             `ddb:"count"`
	OptString *string           `ddb:"optString"`
	OptInt    *int64            `ddb:"optInt"`
	OptTime   *time.Time        `ddb:"optTime"`
	OptStatus *Status           `ddb:"optStatus"`
	Custom    Upper             `ddb:"custom"`
	OptCustom *Upper            `ddb:"optCustom"`
	Renamed   string
	Skipped   string `ddb:"-"`
	private   string
}
