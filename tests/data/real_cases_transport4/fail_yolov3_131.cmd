# https://github.com/wizyoung/YOLOv3_TensorFlow/issues/131 (2019-08-07): the command as posted (GPU_ID is the
# reporter's placeholder). Reported: nohup: failed to run the command 'CUDA_VISIBLE_DEVICES=GPU_ID': No such file or
# directory. A Python training program, started the way servers are.
nohup CUDA_VISIBLE_DEVICES=GPU_ID python train.py &
