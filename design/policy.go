package design

import (
	"slices"
	"strings"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/query"
)

// Action returns the IAM action that DynamoDB checks for op: the
// operation's own name under "dynamodb:" (a write inside
// TransactWriteItems is checked as that write).
func Action(op query.Op) string { return "dynamodb:" + string(op) }

// Policy returns what the service's declared patterns need: the actions
// on the table, and the actions on the indexes its patterns read with
// those indexes.
func Policy(s Service) entity.PolicyOptions {
	var o entity.PolicyOptions
	for _, p := range s.Patterns {
		a := Action(p.Op)
		if p.Index == "" {
			if !slices.Contains(o.Actions, a) {
				o.Actions = append(o.Actions, a)
			}
			continue
		}
		if !slices.Contains(o.IndexActions, a) {
			o.IndexActions = append(o.IndexActions, a)
		}
		if !slices.Contains(o.Indexes, p.Index) {
			o.Indexes = append(o.Indexes, p.Index)
		}
	}
	slices.Sort(o.Actions)
	slices.Sort(o.IndexActions)
	slices.Sort(o.Indexes)
	return o
}

// IAMPolicy returns the least-privilege IAM policy (JSON) of the service:
// only the DynamoDB actions its patterns use, on its table and only the
// indexes its patterns read. tableARN "" means any region and account.
// A service without a table returns nil.
func IAMPolicy(s Service, tableARN string) ([]byte, error) {
	if s.Table == nil {
		return nil, nil
	}
	o := Policy(s)
	o.TableARN = tableARN
	return s.Table.IAMPolicy(o)
}

// CloudFormationPolicy returns [IAMPolicy] as an AWS::IAM::ManagedPolicy
// resource referring to the table resource tableLogicalID ("" means
// "Table"). A service without a table returns nil.
func CloudFormationPolicy(s Service, tableLogicalID string) ([]byte, error) {
	if s.Table == nil {
		return nil, nil
	}
	o := Policy(s)
	o.TableLogicalID = tableLogicalID
	return s.Table.CloudFormationPolicy(o)
}

// KeyGlob returns the ACL key pattern of a declared key: the namespace
// and the key joined by a colon, the placeholders named in vars filled in
// ("{app_id}" -> vars["app_id"]), then cut at the first remaining
// placeholder and ended with * ("job:{jobId}" -> "app:prod:content:job:*").
// Glob metacharacters of the constant part are escaped.
func KeyGlob(namespace, key string, vars map[string]string) string {
	full := key
	if namespace != "" {
		full = namespace + ":" + key
	}
	for k, v := range vars {
		full = strings.ReplaceAll(full, "{"+k+"}", v)
	}
	lit, star := full, false
	if i := strings.IndexByte(full, '{'); i >= 0 {
		lit, star = full[:i], true
	}
	var b strings.Builder
	for _, r := range lit {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	if star {
		b.WriteByte('*')
	}
	return b.String()
}

func (s Service) valkeyKeys() []ValkeyKey {
	return append(append(append([]ValkeyKey(nil), s.Caches...), s.Locks...), s.Idempotency...)
}

// ACLCommands returns the commands the service's client sends: its
// connection commands and those of every declared key, sorted, without
// repeats.
func ACLCommands(s Service) []string {
	cmds := append([]string(nil), s.Conn...)
	for _, k := range s.valkeyKeys() {
		cmds = append(cmds, k.Commands...)
	}
	for i, c := range cmds {
		cmds[i] = strings.ToLower(c)
	}
	slices.Sort(cmds)
	return slices.Compact(cmds)
}

// ACLKeys returns the key patterns of the service's declared keys, with
// the placeholders of vars filled in (see [KeyGlob]); a key with a
// Companion adds the pattern of its companion keys ("{" + the key's
// pattern: the cache's generation keys, the lock's fence counters).
func ACLKeys(s Service, vars map[string]string) []string {
	var keys []string
	for _, k := range s.valkeyKeys() {
		ns := s.Namespace
		if k.Namespace != "" {
			ns = k.Namespace
		}
		g := KeyGlob(ns, k.Key, vars)
		keys = append(keys, g)
		if k.Companion {
			if strings.HasSuffix(g, "*") {
				keys = append(keys, "{"+g)
			} else {
				keys = append(keys, "{"+g+"}*")
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// ACL returns the Valkey/Redis rule of the service for user: reset,
// enabled, password (">"+password; "" means nopass), only the key
// patterns of its declared keys (placeholders of vars filled in), no
// pub/sub channels, and only the commands the library sends for them:
//
//	ACL SETUSER user reset on >pw resetkeys resetchannels ~app:prod:content:job:* ... -@all +evalsha ...
func ACL(s Service, user, password string, vars map[string]string) string {
	return "ACL SETUSER " + strings.Join(ACLArgs(s, user, password, vars), " ")
}

// ACLArgs returns the arguments of [ACL]'s ACL SETUSER command, for a
// client call.
func ACLArgs(s Service, user, password string, vars map[string]string) []string {
	args := []string{user, "reset", "on"}
	if password == "" {
		args = append(args, "nopass")
	} else {
		args = append(args, ">"+password)
	}
	args = append(args, "resetkeys", "resetchannels")
	for _, k := range ACLKeys(s, vars) {
		args = append(args, "~"+k)
	}
	args = append(args, "-@all")
	for _, c := range ACLCommands(s) {
		args = append(args, "+"+c)
	}
	return args
}
