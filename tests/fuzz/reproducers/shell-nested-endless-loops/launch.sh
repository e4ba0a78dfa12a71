while [ "$#" -gt 0 ]; do
  while [ "$#" -gt 0 ]; do
    shift
  done
done
python3 -m sglang.launch_server --model-path /m
