package jaws

import (
	"testing"

	"github.com/jaws-go/jaws/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }
