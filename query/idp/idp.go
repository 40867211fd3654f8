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

func page[T any, PT interface {
	*T
	entity.Item
}](ctx context.Context, q query.Query[T, PT], o query.PageOptions) (query.Page[T], error) {
	return q.With(o, DefaultLimit).Page(ctx)
}

func get[T any, PT interface {
	*T
	entity.Item
}](ctx context.Context, t *entity.Table, op string, key entity.Key, err error, optFns []func(*entity.CallOptions)) (T, error) {
	if err != nil {
		var zero T
		return zero, &entity.ValidationError{Op: op, Type: PT(new(T)).EntitySchema().Type, Err: err}
	}
	return entity.NewStore[T, PT](t).Get(ctx, key, optFns...)
}

// ProjectByID returns one project.
func ProjectByID(ctx context.Context, t *entity.Table, projectID string, optFns ...func(*entity.CallOptions)) (m.Project, error) {
	key, err := m.ProjectKey(projectID)
	return get[m.Project](ctx, t, "ProjectByID", key, err, optFns)
}

// Projects lists every project by creation time (GSI1, GSI1PK = PROJECTS).
func Projects(ctx context.Context, t *entity.Table, o query.PageOptions) (query.Page[m.Project], error) {
	return page(ctx, query.New[m.Project](t, PatternProjects).Index(m.GSI1).Partition(m.ProjectGSI1PK), o)
}

// DocumentByID returns one document of a project.
func DocumentByID(ctx context.Context, t *entity.Table, projectID, documentID string, optFns ...func(*entity.CallOptions)) (m.Document, error) {
	key, err := m.DocumentKey(projectID, documentID)
	return get[m.Document](ctx, t, "DocumentByID", key, err, optFns)
}

// DocumentsOfProject lists a project's documents by creation time (GSI1).
func DocumentsOfProject(ctx context.Context, t *entity.Table, projectID string, o query.PageOptions) (query.Page[m.Document], error) {
	return page(ctx, query.New[m.Document](t, PatternDocumentsOfProject).Index(m.GSI1).PartitionKey(m.DocumentGSI1PK(projectID)), o)
}

// WorkflowByID returns one workflow of a document.
func WorkflowByID(ctx context.Context, t *entity.Table, documentID, workflowID string, optFns ...func(*entity.CallOptions)) (m.Workflow, error) {
	key, err := m.WorkflowKey(documentID, workflowID)
	return get[m.Workflow](ctx, t, "WorkflowByID", key, err, optFns)
}

// WorkflowsOfDocument lists a document's workflows in workflow-id order.
func WorkflowsOfDocument(ctx context.Context, t *entity.Table, documentID string, o query.PageOptions) (query.Page[m.Workflow], error) {
	return page(ctx, query.New[m.Workflow](t, PatternWorkflowsOfDocument).
		PartitionKey(m.WorkflowPK(documentID)).Sort(query.BeginsWith(m.WorkflowSKPrefix)), o)
}

// SegmentByIndex returns one segment of a workflow.
func SegmentByIndex(ctx context.Context, t *entity.Table, workflowID string, index int, optFns ...func(*entity.CallOptions)) (m.Segment, error) {
	key, err := m.SegmentKey(workflowID, index)
	return get[m.Segment](ctx, t, "SegmentByIndex", key, err, optFns)
}

// SegmentsOfWorkflow lists a workflow's segments in numeric index order
// (SEG#000002 before SEG#000010).
func SegmentsOfWorkflow(ctx context.Context, t *entity.Table, workflowID string, o query.PageOptions) (query.Page[m.Segment], error) {
	return page(ctx, query.New[m.Segment](t, PatternSegmentsOfWorkflow).
		PartitionKey(m.SegmentPK(workflowID)).Sort(query.BeginsWith(m.SegmentSKPrefix)), o)
}

// ArtifactByID returns one artifact.
func ArtifactByID(ctx context.Context, t *entity.Table, artifactID string, optFns ...func(*entity.CallOptions)) (m.Artifact, error) {
	key, err := m.ArtifactKey(artifactID)
	return get[m.Artifact](ctx, t, "ArtifactByID", key, err, optFns)
}

// ArtifactsOfUser lists a user's artifacts by creation time (GSI1).
func ArtifactsOfUser(ctx context.Context, t *entity.Table, userID string, o query.PageOptions) (query.Page[m.Artifact], error) {
	return page(ctx, query.New[m.Artifact](t, PatternArtifactsOfUser).Index(m.GSI1).PartitionKey(m.ArtifactGSI1PK(userID)), o)
}

// ArtifactsOfUserProject lists a user's artifacts of one project by
// creation time (GSI2).
func ArtifactsOfUserProject(ctx context.Context, t *entity.Table, userID, projectID string, o query.PageOptions) (query.Page[m.Artifact], error) {
	return page(ctx, query.New[m.Artifact](t, PatternArtifactsOfUserProject).Index(m.GSI2).PartitionKey(m.ArtifactGSI2PK(userID, projectID)), o)
}
