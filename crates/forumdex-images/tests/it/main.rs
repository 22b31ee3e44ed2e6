//! Integration tests of forumdex-images: the local folder of objects and the S3 objects (on a
//! real S3-compatible server) pass the `ImageObjects` conformance suite of forumdex-testkit.

mod s3;

use forumdex_images::LocalImageObjects;

forumdex_testkit::image_objects_conformance!(|dir| {
    LocalImageObjects::open_in(dir).expect("objects folder")
});
