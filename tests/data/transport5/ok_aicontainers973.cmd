# https://github.com/intel/ai-containers/issues/973 (2026-03-29): the documented command the issue calls wrong
# (vllm/0.17.0-xpu.md). `--entrypoint=` (empty) resets the image's ENTRYPOINT (docker/cli `runOptions`: an
# empty --entrypoint given explicitly becomes [""]); the image is the next word and /bin/bash its command.
docker run -t -d --shm-size 10g --net=host --ipc=host --privileged \
  -v /dev/dri/by-path:/dev/dri/by-path --name=vllm-test \
  --device /dev/dri:/dev/dri --entrypoint= intel/vllm:0.17.0-xpu /bin/bash
