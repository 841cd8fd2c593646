// Package incident runs the analysis policy pipewhy.policy/v1 over the latest snapshots
// and the lineage (Evaluate) and groups what it finds into incidents that recur
// (Store.Record): a problem's grouping key (GroupKey, pipewhy.incident.group/v1) is
// derived from its content (policy, reason, artifact, and what exactly differs), so the
// same problem seen again is the same incident, counted once per snapshot, and a
// different problem is a new one. docs/contracts/incidents.md is the specification.
//
// Incidents are stored as an append-only chain of C5 events in .pipewhy/incidents: a
// check that saw something new, or a resolution. Each event holds C1 artifact,
// observation (the scans' dataset states, and the event's own C3 state) and incident
// tables (reason_id is the policy's code, evidence_id the occurrence, grouping_policy_id
// the grouping); the incidents are the fold of the events. Nothing is deleted: resolving
// is an event, and a resolved incident seen at a later snapshot reopens. Writers hold the
// repository lock. Errors are *Error with a stable Code.
package incident
