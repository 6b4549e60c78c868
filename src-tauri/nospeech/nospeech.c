/*
 * A silent stand-in for flite, the speech synthesiser WebKitGTK links for the Web Speech API.
 *
 * Loading flite's thirteen libraries costs each of the app's processes ~5.4 MB (relocating the
 * voices' tables), although Preflight's window never speaks. src/nospeech.rs puts this one
 * library, under each flite library's name, first on the library path of the app and WebKit's
 * helper processes, after the dynamic linker has confirmed that it provides every flite symbol
 * those programs import.
 *
 * It exports exactly what WebKit's GStreamer flite source calls (WebKitFliteSourceGStreamer.cpp),
 * so the Web Speech API keeps working and speaks silence: four voices with their usual names,
 * and waves with no samples. Only the leading fields of flite's structs are declared; WebKit
 * reads no others (cst_voice.h and cst_wave.h in flite 2.x give the full layouts).
 */
#include <stdlib.h>

typedef struct cst_voice_struct {
    const char *name;
    void *features;
    void *ffunctions;
    void *utt_init;
} cst_voice;

typedef struct cst_wave_struct {
    const char *type;
    int sample_rate;
    int num_samples;
    int num_channels;
    short *samples;
} cst_wave;

static cst_voice kal = { "kal", 0, 0, 0 };
static cst_voice slt = { "slt", 0, 0, 0 };
static cst_voice rms = { "rms", 0, 0, 0 };
static cst_voice awb = { "awb", 0, 0, 0 };

int flite_init(void) { return 0; }

int flite_add_lang(const char *name, void (*lang_init)(cst_voice *), void *(*lex_init)(void))
{
    (void)name;
    (void)lang_init;
    (void)lex_init;
    return 1;
}

void usenglish_init(cst_voice *voice) { (void)voice; }

void *cmulex_init(void) { return 0; }

/* The voices are static: WebKit frees them with delete_voice, which keeps them. */
cst_voice *register_cmu_us_kal(const char *dir) { (void)dir; return &kal; }
cst_voice *register_cmu_us_slt(const char *dir) { (void)dir; return &slt; }
cst_voice *register_cmu_us_rms(const char *dir) { (void)dir; return &rms; }
cst_voice *register_cmu_us_awb(const char *dir) { (void)dir; return &awb; }

void delete_voice(cst_voice *voice) { (void)voice; }

/* An empty wave (no samples): the utterance ends at once, in silence. */
cst_wave *flite_text_to_wave(const char *text, cst_voice *voice)
{
    (void)text;
    (void)voice;
    cst_wave *wave = calloc(1, sizeof *wave);
    if (wave) {
        wave->type = "riff";
        wave->sample_rate = 16000;
        wave->num_channels = 1;
    }
    return wave;
}

void cst_wave_resample(cst_wave *wave, int sample_rate)
{
    if (wave)
        wave->sample_rate = sample_rate;
}

void delete_wave(cst_wave *wave)
{
    if (wave)
        free(wave->samples);
    free(wave);
}
