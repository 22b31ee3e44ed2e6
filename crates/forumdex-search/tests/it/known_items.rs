//! Known-item search on a generated corpus: a query made of a post's most distinctive words
//! finds it in the top 10.
