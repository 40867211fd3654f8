// Package idp has one function per query pattern of the idp_v2 backend
// (seed 000), over the entities of package
// github.com/tablekit/tablekit/entity/idp:
//
//	ProjectByID             PK = PROJ#<project_id> AND SK = META
//	Projects                GSI1: GSI1PK = PROJECTS, by created_at
//	DocumentByID            PK = PROJ#<project_id> AND SK = DOC#<document_id>
//	DocumentsOfProject      GSI1: GSI1PK = PROJ#<project_id>#DOC, by created_at
//	WorkflowByID            PK = DOC#<document_id> AND SK = WF#<workflow_id>
//	WorkflowsOfDocument     PK = DOC#<document_id> AND begins_with(SK, WF#)
//	SegmentByIndex          PK = WF#<workflow_id> AND SK = SEG#<index>
//	SegmentsOfWorkflow      PK = WF#<workflow_id> AND begins_with(SK, SEG#), in index order
//	ArtifactByID            PK = ART#<artifact_id> AND SK = META
//	ArtifactsOfUser         GSI1: GSI1PK = USR#<user_id>#ART, by created_at
//	ArtifactsOfUserProject  GSI2: GSI2PK = USR#<user_id>#PROJ#<project_id>#ART, by created_at
//
// Single-item lookups return an error matching entity.ErrNotFound for a
// missing item and an *entity.ValidationError for an empty or malformed
// id. List functions take query.PageOptions last; lists are chronological
// (oldest first, "시간순") unless PageOptions.Reverse, and their pages
// carry a signed cursor bound to the pattern and partition (package
// query). Lists served by a GSI cannot be read consistently
// (PageOptions.ConsistentRead there is a query.ErrInvalid error).
package idp

import (
	"context"

	"github.com/tablekit/tablekit/entity"
	m "github.com/tablekit/tablekit/entity/idp"
	"github.com/tablekit/tablekit/query"
)

// DefaultLimit is the page size of the list patterns when
// query.PageOptions.Limit is 0.
const DefaultLimit = 50

// Pattern names, bound into cursors.
const (
	PatternProjects               = "idp/projects"
	PatternDocumentsOfProject     = "idp/documents-of-project"
	PatternWorkflowsOfDocument    = "idp/workflows-of-document"
	PatternSegmentsOfWorkflow     = "idp/segments-of-workflow"
	PatternArtifactsOfUser        = "idp/artifacts-of-user"
	PatternArtifactsOfUserProject = "idp/artifacts-of-user-project"
)

var (
	eq    = query.KeyCond{Op: "="}
	begin = query.KeyCond{Op: "begins_with"}
)

// The query patterns of seed 000, declared once: the functions below run
// them, cursors bind to their names, and package design renders them into
// entity/idp/DESIGN.md.
var (
	ProjectByIDPattern = query.Pattern{Name: "idp/project-by-id", Func: "ProjectByID", Doc: "단일 프로젝트 조회",
		Op: query.OpGet, Returns: query.Schemas(&m.Project{}), PK: eq, SK: eq, Consistent: true}
	ProjectsPattern = query.Pattern{Name: PatternProjects, Func: "Projects", Doc: "전체 프로젝트 목록 (시간순 정렬)",
		Op: query.OpQuery, Returns: query.Schemas(&m.Project{}), Index: m.GSI1, PK: eq, Limit: DefaultLimit}
	DocumentByIDPattern = query.Pattern{Name: "idp/document-by-id", Func: "DocumentByID", Doc: "단일 문서 조회",
		Op: query.OpGet, Returns: query.Schemas(&m.Document{}), PK: eq, SK: eq, Consistent: true}
	DocumentsOfProjectPattern = query.Pattern{Name: PatternDocumentsOfProject, Func: "DocumentsOfProject", Doc: "프로젝트별 문서 목록 (시간순 정렬)",
		Op: query.OpQuery, Returns: query.Schemas(&m.Document{}), Index: m.GSI1, PK: eq, Limit: DefaultLimit}
	WorkflowByIDPattern = query.Pattern{Name: "idp/workflow-by-id", Func: "WorkflowByID", Doc: "단일 워크플로우 조회",
		Op: query.OpGet, Returns: query.Schemas(&m.Workflow{}), PK: eq, SK: eq, Consistent: true}
	WorkflowsOfDocumentPattern = query.Pattern{Name: PatternWorkflowsOfDocument, Func: "WorkflowsOfDocument", Doc: "문서별 워크플로우 목록",
		Op: query.OpQuery, Returns: query.Schemas(&m.Workflow{}), PK: eq, SK: begin, Limit: DefaultLimit, Consistent: true}
	SegmentByIndexPattern = query.Pattern{Name: "idp/segment-by-index", Func: "SegmentByIndex", Doc: "단일 세그먼트 조회",
		Op: query.OpGet, Returns: query.Schemas(&m.Segment{}), PK: eq, SK: eq, Consistent: true}
	SegmentsOfWorkflowPattern = query.Pattern{Name: PatternSegmentsOfWorkflow, Func: "SegmentsOfWorkflow", Doc: "워크플로우별 세그먼트 목록",
		Op: query.OpQuery, Returns: query.Schemas(&m.Segment{}), PK: eq, SK: begin, Limit: DefaultLimit, Consistent: true}
	ArtifactByIDPattern = query.Pattern{Name: "idp/artifact-by-id", Func: "ArtifactByID", Doc: "단일 아티팩트 조회",
		Op: query.OpGet, Returns: query.Schemas(&m.Artifact{}), PK: eq, SK: eq, Consistent: true}
	ArtifactsOfUserPattern = query.Pattern{Name: PatternArtifactsOfUser, Func: "ArtifactsOfUser", Doc: "유저별 아티팩트 목록 (시간순 정렬)",
		Op: query.OpQuery, Returns: query.Schemas(&m.Artifact{}), Index: m.GSI1, PK: eq, Limit: DefaultLimit}
	ArtifactsOfUserProjectPattern = query.Pattern{Name: PatternArtifactsOfUserProject, Func: "ArtifactsOfUserProject", Doc: "유저별 프로젝트별 아티팩트 목록 (시간순 정렬)",
		Op: query.OpQuery, Returns: query.Schemas(&m.Artifact{}), Index: m.GSI2, PK: eq, Limit: DefaultLimit}
)

// Writes are the writes of the idp backend (entity.Store's Create, Put,
// Update and Delete of every entity; the cached stores of package idpcache
// write through the same calls), declared so that the design document and
// the IAM policy list them.
var Writes = []query.Pattern{
	{Name: "idp/put", Func: "entity.Store.Create, Put", Doc: "생성/저장",
		Op: query.OpPut, Returns: query.Schemas(&m.Project{}, &m.Document{}, &m.Workflow{}, &m.Segment{}, &m.Artifact{}),
		PK: query.KeyCond{Op: "=", Template: "{PK}"}, SK: query.KeyCond{Op: "=", Template: "{SK}"}, Condition: "attribute_not_exists(PK) (Create)"},
	{Name: "idp/update", Func: "entity.Store.Update", Doc: "수정 (GSI 키 재계산)",
		Op: query.OpUpdate, Returns: query.Schemas(&m.Project{}, &m.Document{}, &m.Workflow{}, &m.Segment{}, &m.Artifact{}),
		PK: query.KeyCond{Op: "=", Template: "{PK}"}, SK: query.KeyCond{Op: "=", Template: "{SK}"}, Condition: "attribute_exists(PK)"},
	{Name: "idp/delete", Func: "entity.Store.Delete", Doc: "삭제",
		Op: query.OpDelete, Returns: query.Schemas(&m.Project{}, &m.Document{}, &m.Workflow{}, &m.Segment{}, &m.Artifact{}),
		PK: query.KeyCond{Op: "=", Template: "{PK}"}, SK: query.KeyCond{Op: "=", Template: "{SK}"}},
}

// Patterns lists every query pattern of the package, in the seed's order.
var Patterns = []query.Pattern{
	ProjectByIDPattern, ProjectsPattern, DocumentByIDPattern, DocumentsOfProjectPattern,
	WorkflowByIDPattern, WorkflowsOfDocumentPattern, SegmentByIndexPattern, SegmentsOfWorkflowPattern,
	ArtifactByIDPattern, ArtifactsOfUserPattern, ArtifactsOfUserProjectPattern,
}

func page[T any, PT interface {
	*T
	entity.Item
}](ctx context.Context, t *entity.Table, p query.Pattern, pk string, err error, o query.PageOptions) (query.Page[T], error) {
	return query.From[T, PT](t, p, o, pk).PartitionKey(pk, err).Page(ctx)
}

func get[T any, PT interface {
	*T
	entity.Item
}](ctx context.Context, t *entity.Table, p query.Pattern, key entity.Key, err error, optFns []func(*entity.CallOptions)) (T, error) {
	if err != nil {
		var zero T
		return zero, &entity.ValidationError{Op: p.Func, Type: PT(new(T)).EntitySchema().Type, Err: err}
	}
	return query.Get[T, PT](ctx, t, p, key, optFns...)
}

// ProjectByID returns one project.
func ProjectByID(ctx context.Context, t *entity.Table, projectID string, optFns ...func(*entity.CallOptions)) (m.Project, error) {
	key, err := m.ProjectKey(projectID)
	return get[m.Project](ctx, t, ProjectByIDPattern, key, err, optFns)
}

// Projects lists every project by creation time (GSI1, GSI1PK = PROJECTS).
func Projects(ctx context.Context, t *entity.Table, o query.PageOptions) (query.Page[m.Project], error) {
	return page[m.Project](ctx, t, ProjectsPattern, m.ProjectGSI1PK, nil, o)
}

// DocumentByID returns one document of a project.
func DocumentByID(ctx context.Context, t *entity.Table, projectID, documentID string, optFns ...func(*entity.CallOptions)) (m.Document, error) {
	key, err := m.DocumentKey(projectID, documentID)
	return get[m.Document](ctx, t, DocumentByIDPattern, key, err, optFns)
}

// DocumentsOfProject lists a project's documents by creation time (GSI1).
func DocumentsOfProject(ctx context.Context, t *entity.Table, projectID string, o query.PageOptions) (query.Page[m.Document], error) {
	pk, err := m.DocumentGSI1PK(projectID)
	return page[m.Document](ctx, t, DocumentsOfProjectPattern, pk, err, o)
}

// WorkflowByID returns one workflow of a document.
func WorkflowByID(ctx context.Context, t *entity.Table, documentID, workflowID string, optFns ...func(*entity.CallOptions)) (m.Workflow, error) {
	key, err := m.WorkflowKey(documentID, workflowID)
	return get[m.Workflow](ctx, t, WorkflowByIDPattern, key, err, optFns)
}

// WorkflowsOfDocument lists a document's workflows in workflow-id order.
func WorkflowsOfDocument(ctx context.Context, t *entity.Table, documentID string, o query.PageOptions) (query.Page[m.Workflow], error) {
	pk, err := m.WorkflowPK(documentID)
	return page[m.Workflow](ctx, t, WorkflowsOfDocumentPattern, pk, err, o)
}

// SegmentByIndex returns one segment of a workflow.
func SegmentByIndex(ctx context.Context, t *entity.Table, workflowID string, index int, optFns ...func(*entity.CallOptions)) (m.Segment, error) {
	key, err := m.SegmentKey(workflowID, index)
	return get[m.Segment](ctx, t, SegmentByIndexPattern, key, err, optFns)
}

// SegmentsOfWorkflow lists a workflow's segments in numeric index order
// (SEG#000002 before SEG#000010).
func SegmentsOfWorkflow(ctx context.Context, t *entity.Table, workflowID string, o query.PageOptions) (query.Page[m.Segment], error) {
	pk, err := m.SegmentPK(workflowID)
	return page[m.Segment](ctx, t, SegmentsOfWorkflowPattern, pk, err, o)
}

// ArtifactByID returns one artifact.
func ArtifactByID(ctx context.Context, t *entity.Table, artifactID string, optFns ...func(*entity.CallOptions)) (m.Artifact, error) {
	key, err := m.ArtifactKey(artifactID)
	return get[m.Artifact](ctx, t, ArtifactByIDPattern, key, err, optFns)
}

// ArtifactsOfUser lists a user's artifacts by creation time (GSI1).
func ArtifactsOfUser(ctx context.Context, t *entity.Table, userID string, o query.PageOptions) (query.Page[m.Artifact], error) {
	pk, err := m.ArtifactGSI1PK(userID)
	return page[m.Artifact](ctx, t, ArtifactsOfUserPattern, pk, err, o)
}

// ArtifactsOfUserProject lists a user's artifacts of one project by
// creation time (GSI2).
func ArtifactsOfUserProject(ctx context.Context, t *entity.Table, userID, projectID string, o query.PageOptions) (query.Page[m.Artifact], error) {
	pk, err := m.ArtifactGSI2PK(userID, projectID)
	return page[m.Artifact](ctx, t, ArtifactsOfUserProjectPattern, pk, err, o)
}
