//! Integration tests of forumdex-images: the local folder of objects passes the
//! `ImageObjects` conformance suite of forumdex-testkit.

use forumdex_images::LocalImageObjects;

forumdex_testkit::image_objects_conformance!(|dir| {
    LocalImageObjects::open_in(dir).expect("objects folder")
});
