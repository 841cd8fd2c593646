package incident

import "slices"

// Evidence returns, for every scan snapshot an incident event names as the occurrence of
// a problem, the ids of the incidents it is evidence of, ascending. These are the scan
// snapshots the incident history refers to: a retention policy keeps them (package
// retention). The events are read and validated as List reads them.
func (s *Store) Evidence() (map[string][]uint64, error) {
	evs, err := s.events()
	if err != nil {
		return nil, err
	}
	out := map[string][]uint64{}
	for _, e := range evs {
		for _, o := range e.desc.Evidence {
			if ids := out[o.Snapshot]; !slices.Contains(ids, o.Incident) {
				out[o.Snapshot] = append(ids, o.Incident)
			}
		}
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out, nil
}
