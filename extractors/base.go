package extractors

// The base extractors fill the item record itself (name, size, MIME type):
// every harvest runs them first, in this order (Info.Always), and every
// other extractor finds their data in Input.Prior and is judged by its
// Accept on mime_type's result.
func init() {
	MustRegister(Info{
		Name:           "store",
		DisplayName:    "Item Store Data",
		Family:         FamilyTechnical,
		Version:        "1.0.0",
		Implemented:    true,
		Inline:         true,
		DefaultEnabled: true,
		Always:         true,
		Fields: []Field{
			{Path: "name", Type: TypeString, Doc: "file name as the storage knows it"},
			{Path: "extension", Type: TypeString, Doc: "lower-case extension of the name, without the dot"},
			{Path: "size", Type: TypeNumber, Doc: "bytes"},
		},
		New: func(Env) (Extractor, error) { return storeData{}, nil },
	})
	MustRegister(Info{
		Name:           "mime_type",
		DisplayName:    "MIME Type",
		Family:         FamilyTechnical,
		Version:        "1.0.0",
		Implemented:    true,
		Inline:         true,
		DefaultEnabled: true,
		Always:         true,
		Fields: []Field{
			{Path: "mime_type", Type: TypeString, Doc: "MIME type detected from the content, without parameters"},
			{Path: "extension", Type: TypeString, Doc: "usual extension of that type, without the dot"},
		},
		New: func(Env) (Extractor, error) { return mimeType{}, nil },
	})
}
