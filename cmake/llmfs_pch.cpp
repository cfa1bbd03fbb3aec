// The one source of the target that builds the precompiled header (cmake/llmfs_pch.cmake): CMake
// builds a target's PCH only for a target with sources. Nothing links this object.
