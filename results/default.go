package results

func sectionDefault(hosts []*Host) *Section {
	s := &Section{Report: "default", Title: "Default sweep: every variant on this framework's short set"}
	for h, r := range hostRuns(hosts, "default") {
		t := Summary(r, "")
		t.ID, t.Title = "default-"+h.Slug, "Default sweep — "+h.Title
		s.Tables = append(s.Tables, t)
	}
	return s
}
