//! Language front ends. Each turns discovered source text into facts; Go is the first.

pub mod go;
