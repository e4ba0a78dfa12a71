#!/bin/bash
# Reconstructed after https://github.com/smg-project/smg/issues/773 (image docker.io/lightseekorg/smg:0.3.1): `smg launch --enable-mesh` inside the image, whose Python launcher (launch_router.py) has no --enable-mesh ("smg: error: unrecognized arguments: --enable-mesh"); only the Rust binary's parser takes it. The other words of the launch are not posted.
smg launch --enable-mesh
