//! The forum crawler (`forumdex crawl`): reads an SMF 1.x forum (Bitcointalk) one polite
//! request at a time and turns its pages into corpus-format observations.
