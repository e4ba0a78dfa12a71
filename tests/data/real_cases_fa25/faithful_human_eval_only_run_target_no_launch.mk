# Reconstructed (not copied) after https://github.com/JaleelRadhu/Faithful_Summarization/blob/41f7ab275c0f176f7130948d20f69ef23bfab3c9/human_eval_gen.mk, seen 2026-12-04: no launch (a make file whose only target, written `run :`, runs an evaluation script): the real instance of a Makefile whose targets are all SkyPilot task keys, refused as "not valid YAML" before this sweep (kept: the settings and the recipe)
NUM_SAMPLES = 25
SOURCE_FILE_NAME=filtered_complete_base_google_gemma-2-9b.json
EVAL_MODELS = Qwen_Qwen2.5-7B-Instruct_improved mistral gemma-3-12b-it

run :
	@echo "running the human evaluation csv and mapping generator script"
	python human_evaluation_structure_script.py --num_samples $(NUM_SAMPLES) --source_file_name $(SOURCE_FILE_NAME) --eval_models $(EVAL_MODELS)
