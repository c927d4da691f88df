package variation

import "slices"

// The catalogue: every mutant, the clauses or scenario ids it must fail,
// and how it is made, kept in one file per area of the surface.
var catalogue = slices.Concat(surfaceMutants, schemaMutants, readsMutants, evidenceMutants)
