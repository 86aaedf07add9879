package rest

import (
	_ "embed"
	"encoding/json"
	"net/http"
)

// OpenAPI is the OpenAPI 3 document of this API, served at /api/v1/openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

func serveOpenAPI(*request) (any, int, error) {
	return json.RawMessage(OpenAPI), http.StatusOK, nil
}
